// The run monitor (one tab per run): status, progress bar, throughput, ETA,
// restarts and reader-garbage counters; live charts of train/loss (log
// scale), val/psnr, val/ssim, lr and one chart for any metric chosen by name,
// with a TensorBoard-style smoothing slider; the latest validation's slices
// (input beside output); per-rank log tabs and the run's checkpoints and
// outputs; Stop (graceful) and Resume buttons.
//
// Binds to a RunModel (and, for Stop, a RunController). Model signals only
// mark what is dirty; a timer redraws at most refresh_interval_ms apart, so a
// run streaming 100 000 metric events stays smooth (tests/ui/bench_gui_latency.cpp).
#pragma once

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include "app/runs/run_model.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSplitter;
class QSlider;
class QTabWidget;
QT_END_NAMESPACE

namespace medsynth::app {
class RunController;
struct RunMonitorTexts;
}  // namespace medsynth::app

namespace medsynth::ui {

using app::RunController;

class EvaluationView;
class LogView;
class MetricChartView;
class NodeTable;
class StageSections;
class ValidationImagesView;

struct RunMonitorOptions {
  int refresh_interval_ms = 100;  // charts and labels redraw at most 10 times a second
  int max_points = 2000;          // per chart curve
  // The fixed charts, in order; log-scale ones listed in log_scale_charts.
  QStringList charts{QStringLiteral("train/loss"), QStringLiteral("val/psnr"), QStringLiteral("val/ssim"),
                     QStringLiteral("lr")};
  QStringList log_scale_charts{QStringLiteral("train/loss")};

  QString validate() const;
};

class RunMonitorWidget : public QWidget {
  Q_OBJECT

 public:
  explicit RunMonitorWidget(QWidget* parent = nullptr, RunMonitorOptions options = {});
  ~RunMonitorWidget() override;

  // Shows the controller's run (Stop acts on it). The controller is not owned.
  void set_controller(RunController* controller);
  // Shows a model without a controller (no Stop): tests, benchmarks.
  void set_model(const app::RunModel* model);
  const app::RunModel* model() const { return model_; }
  RunController* controller() const;
  NodeTable* node_table() const { return nodes_; }

  // The chart of a fixed metric ("train/loss"), or null.
  MetricChartView* chart(const QString& metric) const { return charts_.value(metric); }
  MetricChartView* custom_chart() const { return custom_chart_; }
  // A pipeline run's stages: their progress and charts.
  StageSections* stage_sections() const { return stages_; }
  QComboBox* metric_chooser() const { return chooser_; }
  // Log tab of a rank (-1: launcher), or null.
  LogView* log_view(int rank) const { return logs_.value(rank); }
  QList<int> log_ranks() const;

  void set_smoothing(double weight);  // [0, 1)
  double smoothing() const;

  QString status_text() const;
  QString step_text() const;  // "step 40 / 100", "image 1 / 2" for a generate run
  QString throughput_text() const;
  QString eta_text() const;
  QString garbage_text() const;
  QProgressBar* progress_bar() const { return progress_; }
  QPushButton* stop_button() const { return stop_; }
  QPushButton* resume_button() const { return resume_; }
  // How often charts were redrawn (tests check the coalescing; the benchmark reports it).
  int refresh_count() const { return refresh_count_; }

 public slots:
  // Redraws what changed (the timer calls it): labels at once, the charts one
  // per event-loop turn.
  void refresh();
  // Redraws everything that changed before returning (screenshots, tests).
  void refresh_now();

 signals:
  void resume_requested(const QString& run_dir);
  void stop_requested();
  // A checkpoint or output was double-clicked (e.g. a volume for the viewer).
  void file_activated(const QString& path);
  // A flagged memorization pair, to open side by side.
  void compare_requested(const QString& path_a, const QString& path_b);

 public:
  EvaluationView* evaluation_view() const { return evaluation_; }
  ValidationImagesView* validation_images() const { return validation_images_; }
  // The paths the "Checkpoints & outputs" list offers, in its order (tests).
  QStringList listed_file_paths() const;
  // Reads RUN/evaluation/evaluation.json when the run has one.
  void reload_evaluation();

 private:
  QHBoxLayout* build_head();
  QHBoxLayout* build_progress_row();
  QHBoxLayout* build_chart_controls();
  QWidget* build_chart_area();
  void build_lower_tabs();
  void connect_controls();
  void bind_model();
  void schedule();
  void on_metric_appended(const QString& name, int first_new_index);
  void on_log_appended(int rank, int first_new_index);
  void ensure_log_tab(int rank);
  void update_labels();
  void update_chart_area(const app::RunMonitorTexts& texts);
  void update_buttons();
  void update_chooser();
  void refresh_next_chart();
  void add_file_entry(const QString& text, const QString& path);

  RunMonitorOptions options_;
  QPointer<const app::RunModel> model_;
  QPointer<RunController> controller_;
  NodeTable* nodes_ = nullptr;  // cluster runs: per-node state
  QHash<QString, MetricChartView*> charts_;
  MetricChartView* custom_chart_ = nullptr;
  QComboBox* chooser_ = nullptr;
  QSlider* smoothing_ = nullptr;
  QLabel* smoothing_value_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* step_ = nullptr;
  QLabel* throughput_ = nullptr;
  QLabel* eta_ = nullptr;
  QLabel* restarts_ = nullptr;
  QLabel* garbage_ = nullptr;
  QLabel* failure_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* stop_ = nullptr;
  QPushButton* resume_ = nullptr;
  QTabWidget* log_tabs_ = nullptr;
  QHash<int, LogView*> logs_;
  QListWidget* files_ = nullptr;
  QHash<QString, QListWidgetItem*> file_items_;  // files_'s entries by path: one per file
  EvaluationView* evaluation_ = nullptr;  // the Evaluate tab
  ValidationImagesView* validation_images_ = nullptr;  // beside the charts
  QScrollArea* stages_scroll_ = nullptr;
  QSplitter* split_ = nullptr;       // charts above, logs below
  bool pipeline_sized_ = false;      // the splitter gave a pipeline's stages their room once
  StageSections* stages_ = nullptr;  // pipeline runs: a section per stage

  QTimer refresh_timer_;
  QTimer stagger_timer_;                          // the next pending chart
  QList<QPointer<MetricChartView>> pending_charts_;
  QSet<QString> dirty_metrics_;
  bool dirty_labels_ = false;
  bool dirty_names_ = false;
  int refresh_count_ = 0;
};

}  // namespace medsynth::ui
