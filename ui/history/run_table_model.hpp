// The run history as a Qt table model over app::RunStore's summaries: name,
// task, status, started, ended, steps, processes, final loss / PSNR / SSIM.
// Sorts by the underlying value (dates and numbers, not their text). Used by
// RunHistoryWidget through a QSortFilterProxyModel.
#pragma once

#include <QAbstractTableModel>
#include <QVector>

#include "app/runs/run_store.hpp"

namespace medsynth::ui {

class RunTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    name,
    task,
    status,
    started,
    ended,
    steps,
    world,
    loss,
    psnr,
    ssim,
    fid,
    memorized,
    sweep,
    column_count
  };
  static constexpr int k_run_dir_role = Qt::UserRole + 1;
  static constexpr int k_sort_role = Qt::UserRole + 2;

  explicit RunTableModel(app::RunStore* store, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  const app::RunSummary& run(int row) const { return runs_[row]; }
  int row_of(const QString& run_dir) const;

 private:
  void reload();

  app::RunStore* store_;
  QVector<app::RunSummary> runs_;
};

}  // namespace medsynth::ui
