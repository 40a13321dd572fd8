#include "ui/monitor/metric_chart_view.hpp"

#include <QChart>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QPainter>
#include <QSvgGenerator>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSaveFile>
#include <QGraphicsLineItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QCategoryAxis>
#include <QMouseEvent>
#include <QPalette>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "app/runs/metric_series_summary.hpp"
#include "ui/monitor/series_smoothing.hpp"

namespace medsynth::ui {

QString metric_chart_title(const QString& metric) {
  if (metric == QLatin1String("train/loss")) return QObject::tr("Training loss");
  if (metric == QLatin1String("val/psnr")) return QObject::tr("Validation PSNR (dB)");
  if (metric == QLatin1String("val/ssim")) return QObject::tr("Validation SSIM");
  if (metric == QLatin1String("val/diffusion_loss")) return QObject::tr("Validation diffusion loss");
  if (metric == QLatin1String("lr")) return QObject::tr("Learning rate");
  return metric;
}

namespace {

// Tableau-10: distinct on light and dark backgrounds.
const QColor k_palette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                            QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                            QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};

constexpr qsizetype k_dots_below = 12;
// Fewer points than this are drawn as they are: an EMA over a handful of
// validations drags the curve below its real end (issue 38: PSNR drawn at
// 30.5 where the run reached 31.28).
constexpr qsizetype k_smooth_from = 20;

// Heckbert's "nice numbers": 1, 2, 5 x 10^k.
double nice_number(double x, bool round) {
  const double exponent = std::floor(std::log10(x));
  const double fraction = x / std::pow(10.0, exponent);
  double nice;
  if (round)
    nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  else
    nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * std::pow(10.0, exponent);
}

bool palette_is_dark(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

// Nearest point by x; -1 for an empty list. Linear: steps may repeat after a restart.
qsizetype nearest_index(const QList<QPointF>& points, double x) {
  qsizetype best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (qsizetype i = 0; i < points.size(); ++i) {
    const double d = std::abs(points[i].x() - x);
    if (d < best_distance) {
      best_distance = d;
      best = i;
    }
  }
  return best;
}

// Log scale is drawn as log10(y) on a linear axis whose labels name the real
// values: QLogValueAxis labels only powers of ten, so a loss between 0.2 and
// 0.3 would get no label at all.
QList<QPointF> to_log10(QList<QPointF> points) {
  points.removeIf([](const QPointF& p) { return !(p.y() > 0.0); });
  for (QPointF& p : points) p.setY(std::log10(p.y()));
  return points;
}

// Label positions (in log10 units) for [lo, hi]: 1-2-5 steps per decade, finer
// when the range is narrow, evenly spaced values when it is within one step.
QList<double> log_ticks(double lo, double hi) {
  const QList<QList<int>> mantissas{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  for (const QList<int>& set : mantissas) {
    QList<double> ticks;
    for (int k = static_cast<int>(std::floor(lo)) - 1; k <= static_cast<int>(std::ceil(hi)); ++k) {
      for (int m : set) {
        const double t = std::log10(m) + k;
        if (t >= lo && t <= hi) ticks << t;
      }
    }
    if (ticks.size() >= 3) return ticks;
  }
  QList<double> ticks;
  for (int i = 0; i <= 4; ++i) ticks << lo + (hi - lo) * i / 4.0;
  return ticks;
}

QString format_value(double v) { return QString::number(v, 'g', 5); }

// Widens [*x_min, *x_max] x [*y_min, *y_max] to hold every point of `points`.
void extend_bounds(const QList<QPointF>& points, double* x_min, double* x_max, double* y_min, double* y_max) {
  for (const QPointF& p : points) {
    *x_min = std::min(*x_min, p.x());
    *x_max = std::max(*x_max, p.x());
    *y_min = std::min(*y_min, p.y());
    *y_max = std::max(*y_max, p.y());
  }
}

// The y axis for values in [y_min, y_max], with a margin; on a log scale the
// axis is linear in log10 and *categories gets the labels naming real values.
MetricChartView::AxisRange y_axis_range(double y_min, double y_max, bool log_scale,
                                        QList<QPair<QString, double>>* categories) {
  MetricChartView::AxisRange y_range;
  double pad = (y_max - y_min) * 0.05;
  if (log_scale) {
    if (pad <= 0) pad = 0.05;
    y_range = {y_min - pad, y_max + pad, 0};
    for (double t : log_ticks(y_range.low, y_range.high)) {
      const QString label = QString::number(std::pow(10.0, t), 'g', 3);
      if (std::none_of(categories->begin(), categories->end(), [&](const auto& c) { return c.first == label; })) {
        categories->append({label, t});
      }
    }
  } else {
    if (pad <= 0) pad = std::max(std::abs(y_max) * 0.05, 0.5);
    double lo = y_min - pad;
    if (y_min >= 0 && lo < 0) lo = 0;  // a learning rate or an SSIM never goes below zero
    y_range = MetricChartView::nice_range(lo, y_max + pad, 5, /*integer=*/false);
  }
  return y_range;
}

}  // namespace

// The same as QValueAxis::applyNiceNumbers(), computed here so that an axis
// gets one setRange() per refresh instead of two.
MetricChartView::AxisRange MetricChartView::nice_range(double low, double high, int ticks, bool integer) {
  if (!(high > low)) high = low + 1;
  const double span = nice_number(high - low, false);
  double step = nice_number(span / (ticks - 1), true);
  if (integer) step = std::max(1.0, std::round(step));
  AxisRange r;
  r.low = std::floor(low / step) * step;
  r.high = std::ceil(high / step) * step;
  r.ticks = static_cast<int>(std::lround((r.high - r.low) / step)) + 1;
  return r;
}

QString MetricChartOptions::validate() const {
  if (max_points < 4) return QStringLiteral("max_points: must be >= 4 (got %1)").arg(max_points);
  if (!(smoothing >= 0.0 && smoothing < 1.0))
    return QStringLiteral("smoothing: must be in [0, 1) (got %1)").arg(smoothing);
  return {};
}

MetricChartView::MetricChartView(QWidget* parent, MetricChartOptions options)
    : QChartView(parent), options_(options), decimator_(SeriesDecimatorOptions{.max_points = options.max_points}) {
  if (const QString error = options_.validate(); !error.isEmpty()) throw std::invalid_argument(error.toStdString());
  auto* chart = new QChart();
  chart->legend()->setVisible(false);
  chart->setMargins(QMargins(4, 4, 4, 4));
  setChart(chart);
  setRenderHint(QPainter::Antialiasing);
  setMouseTracking(true);
  setMinimumSize(240, 180);

  crosshair_ = new QGraphicsLineItem(chart);
  crosshair_->setZValue(20);
  crosshair_->hide();
  hover_label_ = new QGraphicsSimpleTextItem(chart);
  hover_label_->setZValue(21);
  hover_label_->hide();

  dark_ = palette_is_dark(palette());
  rebuild_axes();
  apply_theme();
}

MetricChartView::~MetricChartView() = default;

void MetricChartView::set_title(const QString& title) {
  title_ = title;
  update_title();
}

void MetricChartView::update_title() {
  QString text = title_;
  if (options_.log_scale) text += tr(" (log)");
  if (waiting_ && !curves_.empty()) text += tr(" — no data yet");
  // One run's chart says its real last value and its best, whatever the smoothing.
  if (curves_.size() == 1 && curves_.front().model) {
    const Curve& c = curves_.front();
    if (const auto s = app::summarize_series(c.model->series(c.metric), c.metric))
      text += tr(" — last %1 · best %2 @ %3")
                  .arg(format_value(s->last.value), format_value(s->best.value))
                  .arg(s->best.step);
  }
  if (chart()->title() != text) chart()->setTitle(text);  // a new title re-lays the chart out
}

QString MetricChartView::readout() const {
  const QString title = chart()->title();
  const qsizetype at = title.indexOf(tr(" — last "));
  return at < 0 ? QString() : title.mid(at + 3);
}

bool MetricChartView::export_csv(const QString& path, QString* error) const {
  QList<QPair<QString, const app::RunModel*>> curves;
  for (const Curve& c : curves_) curves.append({c.label.isEmpty() ? c.metric : c.label, c.model.data()});
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = tr("%1: %2").arg(path, file.errorString());
    return false;
  }
  file.write(app::metric_series_csv(curves, curves_.empty() ? QString() : curves_.front().metric).toUtf8());
  if (!file.commit()) {
    if (error) *error = tr("%1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

// The hover readout (crosshair and label) is the mouse's, not the chart's: an
// exported picture leaves it out (issue 53 item 9) and the view keeps it.
class MetricChartView::HoverHidden {
 public:
  explicit HoverHidden(const MetricChartView& view)
      : crosshair_(view.crosshair_), label_(view.hover_label_), shown_{crosshair_->isVisible(), label_->isVisible()} {
    crosshair_->hide();
    label_->hide();
  }
  ~HoverHidden() {
    crosshair_->setVisible(shown_[0]);
    label_->setVisible(shown_[1]);
  }
  HoverHidden(const HoverHidden&) = delete;
  HoverHidden& operator=(const HoverHidden&) = delete;

 private:
  QGraphicsItem* crosshair_;
  QGraphicsItem* label_;
  bool shown_[2];
};

bool MetricChartView::export_png(const QString& path, QString* error) const {
  const HoverHidden hidden(*this);
  if (const_cast<MetricChartView*>(this)->grab().save(path, "PNG")) return true;
  if (error) *error = tr("%1: cannot write the image").arg(path);
  return false;
}

bool MetricChartView::export_svg(const QString& path, QString* error) const {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size());
  svg.setViewBox(rect());
  svg.setTitle(title_.isEmpty() ? QStringLiteral("medsynth chart") : title_);
  svg.setDescription(tr("A chart of medsynth's run monitor"));
  const HoverHidden hidden(*this);
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error) *error = tr("%1: cannot write the SVG file").arg(path);
    return false;
  }
  const_cast<MetricChartView*>(this)->render(&painter);
  painter.end();
  if (QFileInfo(path).size() > 0) return true;
  if (error) *error = tr("%1: cannot write the SVG file").arg(path);
  return false;
}

QString MetricChartView::default_export_name() const {
  QString name = title_.isEmpty() ? QStringLiteral("chart") : title_;
  // The run's name first, when one run's curves are shown: "val/psnr.csv"
  // from two runs' monitors could not be told apart (issue 53 item 9).
  QString run;
  for (const Curve& c : curves_) {
    const QString dir = c.model ? QFileInfo(c.model->run_dir()).fileName() : QString();
    if (dir.isEmpty() || (!run.isEmpty() && dir != run)) {
      run.clear();
      break;
    }
    run = dir;
  }
  if (!run.isEmpty()) name = run + QLatin1Char('-') + name;
  return name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-"));
}

void MetricChartView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  const QString base = default_export_name();
  using Export = bool (MetricChartView::*)(const QString&, QString*) const;
  const auto save = [&](const QString& filter, const QString& suffix, Export write) {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), base + suffix, filter);
    if (path.isEmpty()) return;
    QString error;
    if (!(this->*write)(path, &error)) QMessageBox::warning(this, tr("Export chart"), error);
  };
  menu.addAction(tr("Export as PNG…"), this,
                 [&] { save(tr("PNG image (*.png)"), QStringLiteral(".png"), &MetricChartView::export_png); });
  menu.addAction(tr("Export as SVG…"), this,
                 [&] { save(tr("SVG image (*.svg)"), QStringLiteral(".svg"), &MetricChartView::export_svg); });
  menu.addAction(tr("Export as CSV…"), this,
                 [&] { save(tr("CSV (*.csv)"), QStringLiteral(".csv"), &MetricChartView::export_csv); });
  menu.exec(event->globalPos());
}

void MetricChartView::set_log_scale(bool on) {
  if (on == options_.log_scale) return;
  options_.log_scale = on;
  rebuild_axes();
  update_title();
  refresh();
}

void MetricChartView::set_smoothing(double weight) {
  weight = std::clamp(weight, 0.0, 0.999);
  if (weight == options_.smoothing) return;
  options_.smoothing = weight;
  for (Curve& c : curves_) apply_pens(c);
  refresh();
}

QColor MetricChartView::next_color() const {
  return k_palette[curves_.size() % (sizeof(k_palette) / sizeof(k_palette[0]))];
}

void MetricChartView::add_curve(const QString& label, const app::RunModel* model, const QString& metric, QColor color,
                                const QString& legend) {
  Curve c;
  c.label = label;
  c.model = model;
  c.metric = metric;
  c.color = color.isValid() ? color : next_color();
  c.raw = new QLineSeries(this);
  c.smoothed = new QLineSeries(this);
  c.raw->setName(label + tr(" (raw)"));
  c.smoothed->setName(legend.isEmpty() ? label : legend);
  for (QLineSeries* s : {c.raw, c.smoothed}) {
    chart()->addSeries(s);
    s->attachAxis(x_axis_);
    s->attachAxis(y_axis_);
  }
  apply_pens(c);
  curves_.push_back(c);
  chart()->legend()->setVisible(curves_.size() > 1);
  // Raw series carry "(raw)" in their name: hide them from the legend.
  for (const Curve& curve : curves_) {
    for (QLegendMarker* m : chart()->legend()->markers(curve.raw)) m->setVisible(false);
  }
  refresh();
}

void MetricChartView::set_metric(const QString& metric) {
  for (Curve& c : curves_) c.metric = metric;
  refresh();
}

QString MetricChartView::metric(int curve) const {
  return curve >= 0 && curve < curve_count() ? curves_[static_cast<size_t>(curve)].metric : QString();
}

void MetricChartView::clear_curves() {
  for (Curve& c : curves_) {
    chart()->removeSeries(c.raw);
    chart()->removeSeries(c.smoothed);
    delete c.raw;
    delete c.smoothed;
  }
  curves_.clear();
  hide_hover();
}

void MetricChartView::apply_pens(Curve& c) {
  QPen pen(c.color);
  pen.setWidthF(options_.smoothing > 0.0 ? 2.0 : 1.6);
  pen.setCosmetic(true);
  c.smoothed->setPen(pen);
  QColor faint = c.color;
  faint.setAlpha(70);
  QPen raw_pen(faint);
  raw_pen.setWidthF(1.0);
  raw_pen.setCosmetic(true);
  c.raw->setPen(raw_pen);
  c.raw->setVisible(options_.smoothing > 0.0);
}

void MetricChartView::rebuild_axes() {
  x_range_ = y_range_ = {};  // new axes: the next refresh sets them
  categories_.clear();
  QChart* chart = this->chart();
  for (Curve& c : curves_) {
    for (QLineSeries* s : {c.raw, c.smoothed}) {
      for (QAbstractAxis* a : s->attachedAxes()) s->detachAxis(a);
    }
  }
  if (x_axis_) {
    chart->removeAxis(x_axis_);
    delete x_axis_;
  }
  if (y_axis_) {
    chart->removeAxis(y_axis_);
    delete y_axis_;
  }
  x_axis_ = new QValueAxis(this);
  x_axis_->setLabelFormat("%.0f");
  x_axis_->setTitleText(tr("step"));
  x_axis_->setTickCount(5);
  if (options_.log_scale) {
    auto* log_axis = new QCategoryAxis(this);
    log_axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    y_axis_ = log_axis;
  } else {
    auto* value_axis = new QValueAxis(this);
    value_axis->setLabelFormat("%.4g");
    value_axis->setTickCount(5);
    y_axis_ = value_axis;
  }
  // Qt Charts sizes the label column for the first labels it drew ("0",
  // "0.5"); later wider ones ("13.75" dB) would be cut to "..." otherwise.
  y_axis_->setTruncateLabels(false);
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  for (Curve& c : curves_) {
    for (QLineSeries* s : {c.raw, c.smoothed}) {
      s->attachAxis(x_axis_);
      s->attachAxis(y_axis_);
    }
  }
  apply_theme();
}

void MetricChartView::apply_theme() {
  // setTheme() resets series pens and axis fonts: re-apply ours afterwards.
  chart()->setTheme(dark_ ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart()->setBackgroundBrush(palette().color(QPalette::Base));
  chart()->setTitleBrush(palette().color(QPalette::Text));
  for (Curve& c : curves_) apply_pens(c);
  const QColor text = palette().color(QPalette::Text);
  crosshair_->setPen(QPen(text, 0, Qt::DashLine));
  hover_label_->setBrush(text);
  for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(x_axis_), y_axis_}) {
    if (!axis) continue;
    axis->setLabelsBrush(text);
    axis->setTitleBrush(text);
  }
  update_title();
}

int MetricChartView::bucket_count() const {
  // About one bucket per pixel; a hidden chart still keeps a usable shape.
  const int width = static_cast<int>(chart()->plotArea().width());
  return std::clamp(width, 250, options_.max_points / 2);
}

void MetricChartView::refresh() {
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
  double y_min = x_min, y_max = -x_min;
  const int buckets = bucket_count();
  std::vector<std::pair<QList<QPointF>, QList<QPointF>>> shown;  // (smoothed, raw) per curve
  shown.reserve(curves_.size());
  for (Curve& c : curves_) {
    QList<QPointF> raw, smoothed;
    if (c.model) {
      const QVector<app::MetricPoint>& points = c.model->series(c.metric);
      smoothed = smooth_ema(points, points.size() < k_smooth_from ? 0.0 : options_.smoothing);
      if (options_.smoothing > 0.0) raw = finite_points(points);
    }
    if (options_.log_scale) {
      smoothed = to_log10(std::move(smoothed));
      raw = to_log10(std::move(raw));
    }
    shown.emplace_back(decimator_.decimate(smoothed, buckets), decimator_.decimate(raw, buckets));
    for (const QList<QPointF>* list : {&shown.back().first, &shown.back().second})
      extend_bounds(*list, &x_min, &x_max, &y_min, &y_max);
  }
  const bool empty = !std::isfinite(x_min);
  if (empty) x_min = 0, x_max = 0, y_min = options_.log_scale ? -1.0 : 0.0, y_max = options_.log_scale ? 0.0 : 1.0;
  waiting_ = empty;
  update_title();

  // Steps are integers: at least one step per tick, so labels never repeat.
  const AxisRange x_range = nice_range(x_min, std::max(x_max, x_min + 4), 5, /*integer=*/true);
  QList<QPair<QString, double>> categories;
  const AxisRange y_range = y_axis_range(y_min, y_max, options_.log_scale, &categories);

  // Every axis change re-lays out (and re-strokes) every series of the chart:
  // change the axes while the series are empty, then give them their points,
  // so each series is laid out once per refresh.
  const bool axes_change = x_range != x_range_ || y_range != y_range_ || categories != categories_;
  if (axes_change) set_axes(x_range, y_range, categories);
  for (size_t i = 0; i < curves_.size(); ++i) {
    Curve& c = curves_[i];
    c.smoothed->replace(shown[i].first);
    c.raw->replace(shown[i].second);
    // A line needs two points: the first few (validation metrics) show as dots.
    c.smoothed->setPointsVisible(shown[i].first.size() <= k_dots_below);
  }
}

// Empties the series, then gives the axes their new ranges (and, on a log
// scale, their labels) and remembers them.
void MetricChartView::set_axes(const AxisRange& x_range, const AxisRange& y_range,
                               const QList<QPair<QString, double>>& categories) {
  for (Curve& c : curves_) {
    c.smoothed->clear();
    c.raw->clear();
  }
  x_axis_->setTickCount(x_range.ticks);
  x_axis_->setRange(x_range.low, x_range.high);
  if (options_.log_scale) {
    auto* axis = static_cast<QCategoryAxis*>(y_axis_);
    if (categories != categories_) {
      for (const QString& label : axis->categoriesLabels()) axis->remove(label);
      axis->setStartValue(y_range.low);
      for (const auto& [label, t] : categories) axis->append(label, t);
    }
    axis->setRange(y_range.low, y_range.high);
  } else {
    auto* axis = static_cast<QValueAxis*>(y_axis_);
    axis->setTickCount(y_range.ticks);
    axis->setRange(y_range.low, y_range.high);
  }
  x_range_ = x_range;
  y_range_ = y_range;
  categories_ = categories;
}

QList<QPointF> MetricChartView::displayed_points(int curve) const {
  if (curve < 0 || curve >= curve_count()) return {};
  return curves_[static_cast<size_t>(curve)].smoothed->points();
}

QList<QPointF> MetricChartView::displayed_raw_points(int curve) const {
  if (curve < 0 || curve >= curve_count()) return {};
  return curves_[static_cast<size_t>(curve)].raw->points();
}

QString MetricChartView::show_hover_at_step(double step) {
  QStringList lines;
  double shown_step = std::numeric_limits<double>::quiet_NaN();
  double anchor_y = 0.0;
  QLineSeries* anchor_series = nullptr;
  for (const Curve& c : curves_) {
    if (!c.model) continue;
    const QVector<app::MetricPoint>& points = c.model->series(c.metric);
    const QList<QPointF> raw = finite_points(points);
    const qsizetype i = nearest_index(raw, std::isfinite(shown_step) ? shown_step : step);
    if (i < 0) continue;
    if (!std::isfinite(shown_step)) {
      shown_step = raw[i].x();
      anchor_y = raw[i].y();
      anchor_series = c.smoothed;
    }
    QString line = (curves_.size() > 1 ? c.label + ": " : c.metric + " ") + format_value(raw[i].y());
    if (options_.smoothing > 0.0) {
      const QList<QPointF> smooth = smooth_ema(points, options_.smoothing);
      const qsizetype j = nearest_index(smooth, raw[i].x());
      if (j >= 0) line += tr(" (smoothed %1)").arg(format_value(smooth[j].y()));
    }
    lines << line;
  }
  if (lines.isEmpty() || !anchor_series) {
    hide_hover();
    return {};
  }
  hover_text_ = tr("step %1").arg(static_cast<qint64>(shown_step)) + "\n" + lines.join('\n');
  const QRectF area = chart()->plotArea();
  if (options_.log_scale) anchor_y = anchor_y > 0 ? std::log10(anchor_y) : 0.0;
  const double x = chart()->mapToPosition(QPointF(shown_step, anchor_y), anchor_series).x();
  crosshair_->setLine(x, area.top(), x, area.bottom());
  crosshair_->setVisible(x >= area.left() - 1 && x <= area.right() + 1);
  hover_label_->setText(hover_text_);
  const QRectF label = hover_label_->boundingRect();
  // Keep the label inside the plot: right of the line, or left near the right edge.
  const double lx = x + 8 + label.width() < area.right() ? x + 8 : x - 8 - label.width();
  hover_label_->setPos(std::max(area.left(), lx), area.top() + 4);
  hover_label_->show();
  emit hovered(hover_text_);
  return hover_text_;
}

void MetricChartView::hide_hover() {
  hover_text_.clear();
  crosshair_->hide();
  hover_label_->hide();
}

void MetricChartView::mouseMoveEvent(QMouseEvent* event) {
  QChartView::mouseMoveEvent(event);
  if (curves_.empty()) return;
  const QPointF scene = mapToScene(event->position().toPoint());
  const QPointF pos = chart()->mapFromScene(scene);
  if (!chart()->plotArea().contains(pos)) {
    hide_hover();
    return;
  }
  const QPointF value = chart()->mapToValue(pos, curves_.front().smoothed);
  show_hover_at_step(value.x());
}

void MetricChartView::leaveEvent(QEvent* event) {
  hide_hover();
  QChartView::leaveEvent(event);
}

void MetricChartView::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  refresh();  // the bucket count follows the plot's width
}

void MetricChartView::changeEvent(QEvent* event) {
  QChartView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    dark_ = palette_is_dark(palette());
    apply_theme();
  }
}

}  // namespace medsynth::ui
