// Two to eight runs side by side: their curves overlaid, one chart, the
// metric picked from the union of their metric names (train/loss first), with
// smoothing and a log-scale switch; below, the job fields whose values differ
// between them (app::job_differences), one column per run. The runs are read by app::EventFileTail
// on a worker thread (no rank logs), so opening the dialog never blocks.
// Opened non-modally by RunHistoryWidget.
#pragma once

#include <QDialog>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <vector>

#include "app/runs/event_file_tail.hpp"
#include "app/runs/run_model.hpp"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QListWidget;
class QSlider;
class QTableWidget;
QT_END_NAMESPACE

namespace medsynth::ui {

class MetricChartView;

class CompareRunsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit CompareRunsDialog(const QStringList& run_dirs, QWidget* parent = nullptr);
  ~CompareRunsDialog() override;

  void set_metric(const QString& metric);
  QString metric() const { return metric_; }
  QStringList metric_names() const;
  MetricChartView* chart() const { return chart_; }
  QTableWidget* differences() const { return differences_; }
  const app::RunModel* model(int i) const { return runs_[static_cast<size_t>(i)].model.get(); }
  int run_count() const { return static_cast<int>(runs_.size()); }

 private:
  struct Run {
    QString run_dir;
    std::unique_ptr<app::RunModel> model;
    std::unique_ptr<app::EventFileTail> tail;
  };
  void build_chart_controls();  // the chart, the metric list, smoothing and log scale
  void add_runs(const QStringList& run_dirs, const QStringList& names);
  QWidget* build_job_differences(const QStringList& run_dirs, const QStringList& names);
  void schedule();
  void refresh();
  void update_metric_list();

  std::vector<Run> runs_;
  QString metric_ = QStringLiteral("train/loss");
  MetricChartView* chart_ = nullptr;
  QListWidget* metrics_ = nullptr;
  QSlider* smoothing_ = nullptr;
  QCheckBox* log_scale_ = nullptr;
  QTableWidget* differences_ = nullptr;
  QTimer refresh_timer_;
  bool names_dirty_ = true;
};

}  // namespace medsynth::ui
