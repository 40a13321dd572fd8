// The "Runs" tab: every run directory under the history roots (app::RunStore,
// scanned on a worker thread) as a sortable table. Double-click (or Open)
// opens a run's monitor; selecting two to eight runs enables Compare (CompareRunsDialog).
// MainWindow forwards open_run_requested to LaunchCoordinator.
#pragma once

#include <QStringList>
#include <QWidget>

#include "app/runs/run_store.hpp"

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
QT_END_NAMESPACE

namespace medsynth::ui {

class RunTableModel;

class RunHistoryWidget : public QWidget {
  Q_OBJECT

 public:
  explicit RunHistoryWidget(app::RunStore* store, QWidget* parent = nullptr);

  app::RunStore* store() const { return store_; }
  QTableView* table() const { return table_; }
  RunTableModel* table_model() const { return model_; }
  // Run directories of the selected rows, in table order.
  QStringList selected_run_dirs() const;
  // Selects the rows of these run directories (tests, "show in history").
  void select_runs(const QStringList& run_dirs);
  int row_count() const;

 public slots:
  void refresh();
  // Opens the compare dialog for the selected runs (non-modal).
  void compare_selected();

 signals:
  void open_run_requested(const QString& run_dir);
  void roots_changed(const QStringList& roots);

 private:
  void update_buttons();
  void on_refreshed();
  void add_root();

  app::RunStore* store_;
  RunTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QLabel* roots_ = nullptr;
  QLabel* state_ = nullptr;
  QPushButton* refresh_ = nullptr;
  QPushButton* open_ = nullptr;
  QPushButton* compare_ = nullptr;
};

}  // namespace medsynth::ui
