// The stages of a pipeline run (task ldm) in the run monitor, one section per
// stage in pipeline order: its status, its own progress bar (a training
// stage's steps, generate's images) and, for the stages that train, their own
// charts (loss, PSNR/SSIM, diffusion validation loss), each created when its
// first point arrives. Stage metrics count the stage's own steps, so each
// stage gets charts of its own rather than sharing an x axis with another.
// The arithmetic is app/runs/pipeline_stages; this is the view. GUI thread only.
#pragma once

#include <QHash>
#include <QPointer>
#include <QStringList>
#include <QWidget>

#include "app/runs/run_model.hpp"

QT_BEGIN_NAMESPACE
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QVBoxLayout;
QT_END_NAMESPACE

namespace medsynth::ui {

class MetricChartView;

// The base metrics a training stage gets a chart for, in order; log-scale ones in log_scale.
struct StageSectionsOptions {
  QStringList charts{QStringLiteral("train/loss"), QStringLiteral("val/psnr"), QStringLiteral("val/ssim"),
                     QStringLiteral("val/diffusion_loss")};
  QStringList log_scale{QStringLiteral("train/loss")};
  int max_points = 2000;
};

class StageSections : public QWidget {
  Q_OBJECT

 public:
  explicit StageSections(QWidget* parent = nullptr, StageSectionsOptions options = {});
  ~StageSections() override;

  // Null clears. Charts for the model's metrics so far are created at once.
  void set_model(const app::RunModel* model);
  // Status and progress of every stage (the monitor calls it with its labels).
  void update_progress();
  // A metric got points: its stage chart (created on its first point), or
  // null when it is not a stage metric with a chart.
  MetricChartView* chart_for_metric(const QString& metric);
  void set_smoothing(double weight);

  // Tests and screenshots.
  QStringList stage_names() const { return names_; }
  QProgressBar* progress_bar(const QString& stage) const;
  QString detail_text(const QString& stage) const;
  MetricChartView* chart(const QString& stage, const QString& base_metric) const;
  QList<MetricChartView*> charts() const;

 private:
  struct Section {
    QLabel* status = nullptr;
    QProgressBar* progress = nullptr;
    QLabel* detail = nullptr;
    QHBoxLayout* charts = nullptr;
  };
  void rebuild_sections();
  void clear_sections();

  StageSectionsOptions options_;
  QPointer<const app::RunModel> model_;
  QStringList names_;
  QVBoxLayout* layout_ = nullptr;
  QHash<QString, Section> sections_;
  QHash<QString, MetricChartView*> charts_;  // by full metric name ("autoencoder/train/loss")
  QList<QWidget*> section_widgets_;
  double smoothing_ = 0.0;
};

}  // namespace medsynth::ui
