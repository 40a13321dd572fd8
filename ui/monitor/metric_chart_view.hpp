// One live chart of one metric (e.g. train/loss) against step, for the run
// monitor and the compare dialog. Curves read their points straight from a
// RunModel on refresh(); nothing is copied per event. Each refresh smooths
// (TensorBoard EMA: raw curve faint, smoothed curve bold; series of fewer
// than 20 points, validations, are drawn unsmoothed) and decimates to
// about two points per horizontal pixel (SeriesDecimator), so a 100 000-point
// series costs a few thousand chart points. Callers coalesce refreshes (the
// monitor's 10 Hz timer); hovering shows a crosshair with step and values.
//
// GUI thread only. Follows the application palette (light/dark) by itself.
#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <QPair>
#include <QPointer>
#include <QString>
#include <vector>

#include "app/runs/run_model.hpp"
#include "ui/monitor/series_decimator.hpp"

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace medsynth::ui {

// A chart's title for a metric: "Training loss" for train/loss, ...; the
// name itself for the others.
QString metric_chart_title(const QString& metric);

struct MetricChartOptions {
  int max_points = 2000;     // per curve, before the pixel limit
  bool log_scale = false;    // y axis logarithmic (values <= 0 are not drawn)
  double smoothing = 0.0;    // EMA weight in [0, 1)

  QString validate() const;
};

class MetricChartView : public QChartView {
  Q_OBJECT

 public:
  explicit MetricChartView(QWidget* parent = nullptr, MetricChartOptions options = {});
  ~MetricChartView() override;

  void set_title(const QString& title);
  QString title() const { return title_; }
  void set_log_scale(bool on);
  bool log_scale() const { return options_.log_scale; }
  void set_smoothing(double weight);
  double smoothing() const { return options_.smoothing; }

  // One curve per (model, metric): the monitor has one, the compare dialog one per run.
  // `legend`: the legend's name for the curve when it is not `label` (the
  // exports and the hover keep `label`).
  void add_curve(const QString& label, const app::RunModel* model, const QString& metric, QColor color = {},
                 const QString& legend = {});
  // Point every curve at another metric (the monitor's metric chooser).
  void set_metric(const QString& metric);
  void clear_curves();
  int curve_count() const { return static_cast<int>(curves_.size()); }
  QString metric(int curve) const;

  // Re-reads the models and redraws. Cheap enough for 10 Hz with 100 000 points.
  void refresh();

  // What is drawn (after smoothing and decimation; y is log10(value) on a log
  // scale, whose axis labels name the real values): for tests and benchmarks.
  QList<QPointF> displayed_points(int curve) const;
  QList<QPointF> displayed_raw_points(int curve) const;
  // Crosshair at `step` (as the mouse does); returns the text shown, "" when nothing is near.
  QString show_hover_at_step(double step);
  QString hover_text() const { return hover_text_; }
  // The file name the export dialogs start from: "RUN-TITLE" when the curves
  // are one run's, else the title, in characters any file system takes.
  QString default_export_name() const;
  void hide_hover();

  // "last 31.28 · best 31.28 @ 700" as the title shows it for a one-run chart ("" otherwise).
  QString readout() const;
  // The curves' raw points as CSV (app::metric_series_csv), or the chart as
  // drawn as a PNG; false with *error naming the file. The context menu offers all three.
  bool export_csv(const QString& path, QString* error = nullptr) const;
  bool export_png(const QString& path, QString* error = nullptr) const;
  // The chart as vector graphics (Qt SVG's generator), for a paper's figure:
  // the curves, axes and labels as drawn, scalable.
  bool export_svg(const QString& path, QString* error = nullptr) const;

 signals:
  void hovered(const QString& text);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 public:
  struct AxisRange {
    double low = 0, high = 0;
    int ticks = 0;
    bool operator==(const AxisRange&) const = default;
  };
  // A range covering [low, high] on round numbers with about `ticks` ticks.
  static AxisRange nice_range(double low, double high, int ticks, bool integer);

 private:
  class HoverHidden;  // hides the hover readout while a picture is exported
  struct Curve {
    QString label;
    QPointer<const app::RunModel> model;
    QString metric;
    QColor color;
    QLineSeries* raw = nullptr;       // faint, only while smoothing > 0
    QLineSeries* smoothed = nullptr;  // the curve itself
  };

  void rebuild_axes();
  void set_axes(const AxisRange& x_range, const AxisRange& y_range, const QList<QPair<QString, double>>& categories);
  void apply_theme();
  void apply_pens(Curve& curve);
  void update_title();
  int bucket_count() const;
  QColor next_color() const;

  MetricChartOptions options_;
  SeriesDecimator decimator_;
  QString title_;
  std::vector<Curve> curves_;
  QValueAxis* x_axis_ = nullptr;
  QAbstractAxis* y_axis_ = nullptr;
  QGraphicsLineItem* crosshair_ = nullptr;
  QGraphicsSimpleTextItem* hover_label_ = nullptr;
  QString hover_text_;
  bool dark_ = false;
  bool waiting_ = false;  // no point to draw yet (said in the title)
  AxisRange x_range_, y_range_;                  // as last set on the axes
  QList<QPair<QString, double>> categories_;     // log-scale labels as last set
};

}  // namespace medsynth::ui
