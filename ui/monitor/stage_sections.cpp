#include "ui/monitor/stage_sections.hpp"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

#include "app/runs/pipeline_stages.hpp"
#include "ui/monitor/metric_chart_view.hpp"

namespace medsynth::ui {

namespace {

QString stage_title(const QString& stage) {
  QString title = stage;
  if (!title.isEmpty()) title[0] = title[0].toUpper();
  return title;
}

QString detail_of(const app::StageProgress& p) {
  if (p.total > 0) return QObject::tr("%1 / %2 %3").arg(p.done).arg(p.total).arg(p.unit);
  if (p.finished) return QObject::tr("done");
  return p.status == QLatin1String("pending") ? QObject::tr("waiting") : QObject::tr("running");
}

}  // namespace

StageSections::StageSections(QWidget* parent, StageSectionsOptions options)
    : QWidget(parent), options_(std::move(options)) {
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(0, 0, 0, 0);
  layout_->setSpacing(2);
}

StageSections::~StageSections() = default;

void StageSections::set_model(const app::RunModel* model) {
  model_ = model;
  clear_sections();
  if (!model_) return;
  rebuild_sections();
  for (const QString& name : model_->metric_names()) chart_for_metric(name);
  update_progress();
}

void StageSections::clear_sections() {
  for (QWidget* w : std::as_const(section_widgets_)) w->deleteLater();
  section_widgets_.clear();
  sections_.clear();
  charts_.clear();
  names_.clear();
}

void StageSections::rebuild_sections() {
  const QStringList names = model_ ? app::pipeline_stage_names(*model_) : QStringList();
  if (names == names_) return;
  // A stage seen that was not planned (another engine) is added at the end;
  // sections already built (and their charts) stay.
  for (const QString& name : names) {
    if (sections_.contains(name)) continue;
    auto* frame = new QFrame(this);
    frame->setObjectName(QStringLiteral("stage_") + name);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* box = new QVBoxLayout(frame);
    box->setContentsMargins(6, 3, 6, 3);
    box->setSpacing(2);
    auto* head = new QHBoxLayout();
    auto* title = new QLabel(stage_title(name), frame);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    title->setMinimumWidth(110);
    Section s;
    s.status = new QLabel(frame);
    s.status->setMinimumWidth(200);
    s.progress = new QProgressBar(frame);
    s.progress->setObjectName(QStringLiteral("stage_progress_") + name);
    s.progress->setFormat(QStringLiteral("%p%"));
    s.detail = new QLabel(frame);
    s.detail->setMinimumWidth(120);
    head->addWidget(title);
    head->addWidget(s.status);
    head->addWidget(s.progress, 1);
    head->addWidget(s.detail);
    box->addLayout(head);
    s.charts = new QHBoxLayout();
    s.charts->setSpacing(4);
    box->addLayout(s.charts);
    layout_->addWidget(frame);
    section_widgets_ << frame;
    sections_.insert(name, s);
  }
  names_ = names;
}

void StageSections::update_progress() {
  if (!model_) return;
  rebuild_sections();
  for (const app::StageProgress& p : app::pipeline_progress(*model_)) {
    const auto it = sections_.constFind(p.name);
    if (it == sections_.constEnd()) continue;
    it->status->setText(p.current ? tr("▶ %1").arg(p.status) : p.status);
    if (p.total > 0) {
      it->progress->setRange(0, static_cast<int>(std::min<qint64>(p.total, INT_MAX)));
      it->progress->setValue(static_cast<int>(std::min(p.done, p.total)));
    } else if (p.finished) {
      it->progress->setRange(0, 1);
      it->progress->setValue(1);
    } else {
      it->progress->setRange(0, 1);  // not measurable: empty until done
      it->progress->setValue(0);
    }
    it->detail->setText(detail_of(p));
  }
}

MetricChartView* StageSections::chart_for_metric(const QString& metric) {
  if (const auto found = charts_.constFind(metric); found != charts_.constEnd()) return *found;
  if (!model_) return nullptr;
  rebuild_sections();
  const auto split = app::split_stage_metric(metric, names_);
  if (!split || !options_.charts.contains(split->base) || !sections_.contains(split->stage)) return nullptr;
  Section& s = sections_[split->stage];
  MetricChartOptions o;
  o.max_points = options_.max_points;
  o.log_scale = options_.log_scale.contains(split->base);
  o.smoothing = smoothing_;
  auto* chart = new MetricChartView(s.charts->parentWidget(), o);
  chart->setObjectName(metric);
  chart->set_title(tr("%1: %2").arg(stage_title(split->stage), metric_chart_title(split->base)));
  chart->setMinimumHeight(170);
  chart->add_curve(split->stage, model_, metric);
  // Keep the order of options_.charts whatever order the metrics arrive in.
  int index = 0;
  for (int i = 0; i < s.charts->count(); ++i) {
    const QString other = s.charts->itemAt(i)->widget()->objectName();
    if (options_.charts.indexOf(other.mid(split->stage.size() + 1)) < options_.charts.indexOf(split->base))
      index = i + 1;
  }
  s.charts->insertWidget(index, chart, 1);
  charts_.insert(metric, chart);
  return chart;
}

void StageSections::set_smoothing(double weight) {
  smoothing_ = weight;
  for (MetricChartView* chart : std::as_const(charts_)) chart->set_smoothing(weight);
}

QProgressBar* StageSections::progress_bar(const QString& stage) const {
  const auto it = sections_.constFind(stage);
  return it == sections_.constEnd() ? nullptr : it->progress;
}

QString StageSections::detail_text(const QString& stage) const {
  const auto it = sections_.constFind(stage);
  return it == sections_.constEnd() ? QString() : it->detail->text();
}

MetricChartView* StageSections::chart(const QString& stage, const QString& base_metric) const {
  return charts_.value(stage + QLatin1Char('/') + base_metric);
}

QList<MetricChartView*> StageSections::charts() const { return charts_.values(); }

}  // namespace medsynth::ui
