#include "ui/monitor/run_monitor_widget.hpp"

#include "ui/monitor/node_table.hpp"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <cmath>
#include <stdexcept>

#include "ui/monitor/evaluation_view.hpp"
#include "ui/monitor/log_view.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "ui/monitor/stage_sections.hpp"
#include "ui/monitor/validation_images_view.hpp"
#include "app/runs/pipeline_stages.hpp"
#include "app/runs/run_monitor_texts.hpp"
#include "app/runs/validation_image_set.hpp"
#include "app/session/run_controller.hpp"

namespace medsynth::ui {

QString RunMonitorOptions::validate() const {
  if (refresh_interval_ms < 0) return QStringLiteral("refresh_interval_ms: must be >= 0 (got %1)").arg(refresh_interval_ms);
  if (max_points < 4) return QStringLiteral("max_points: must be >= 4 (got %1)").arg(max_points);
  return {};
}

RunMonitorWidget::RunMonitorWidget(QWidget* parent, RunMonitorOptions options) : QWidget(parent), options_(options) {
  if (const QString error = options_.validate(); !error.isEmpty()) throw std::invalid_argument(error.toStdString());
  QHBoxLayout* head = build_head();
  QHBoxLayout* progress_row = build_progress_row();
  QHBoxLayout* controls = build_chart_controls();
  QWidget* chart_area = build_chart_area();
  build_lower_tabs();
  auto* split = new QSplitter(Qt::Vertical, this);
  split_ = split;
  split->addWidget(chart_area);
  split->addWidget(log_tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(head);
  layout->addLayout(progress_row);
  layout->addWidget(failure_);
  nodes_ = new NodeTable(this);
  layout->addWidget(nodes_);
  layout->addLayout(controls);
  layout->addWidget(split, 1);

  connect_controls();
  set_smoothing(smoothing_->value() / 100.0);
  bind_model();
}

// The title, status and the Stop/Resume buttons; the progress row's and the
// failure line's widgets too (made here, in tab order).
QHBoxLayout* RunMonitorWidget::build_head() {
  title_ = new QLabel(tr("No run"), this);
  QFont bold = title_->font();
  bold.setBold(true);
  bold.setPointSizeF(bold.pointSizeF() * 1.15);
  title_->setFont(bold);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_ = new QLabel(this);
  status_->setObjectName("run_status");
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setObjectName("stop");
  stop_->setToolTip(tr("Stop gracefully: the engine writes a checkpoint, the run can be resumed (Ctrl+.)"));
  resume_ = new QPushButton(tr("Resume"), this);
  resume_->setObjectName("resume");
  resume_->setToolTip(tr("Launch again from this run's last checkpoint"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(QStringLiteral("%p%"));
  step_ = new QLabel(this);
  throughput_ = new QLabel(this);
  throughput_->setObjectName("throughput");
  eta_ = new QLabel(this);
  eta_->setObjectName("eta");
  restarts_ = new QLabel(this);
  restarts_->setObjectName("restarts");
  garbage_ = new QLabel(this);
  garbage_->setObjectName("garbage");
  garbage_->setStyleSheet(QStringLiteral("color:#e08a00;"));
  failure_ = new QLabel(this);
  failure_->setObjectName("failure");
  failure_->setWordWrap(true);
  failure_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  failure_->setStyleSheet(QStringLiteral("color:#d62728;"));
  failure_->hide();

  auto* head = new QHBoxLayout();
  head->addWidget(title_, 1);
  head->addWidget(status_);
  head->addWidget(stop_);
  head->addWidget(resume_);
  return head;
}

QHBoxLayout* RunMonitorWidget::build_progress_row() {
  auto* progress_row = new QHBoxLayout();
  progress_row->addWidget(progress_, 1);
  progress_row->addWidget(step_);
  progress_row->addSpacing(12);
  progress_row->addWidget(throughput_);
  progress_row->addSpacing(12);
  progress_row->addWidget(eta_);
  progress_row->addSpacing(12);
  progress_row->addWidget(restarts_);
  progress_row->addWidget(garbage_);

  return progress_row;
}

QHBoxLayout* RunMonitorWidget::build_chart_controls() {
  smoothing_ = new QSlider(Qt::Horizontal, this);
  smoothing_->setObjectName("smoothing");
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  smoothing_->setMaximumWidth(220);
  smoothing_->setToolTip(tr("Exponential moving average of the curves, as in TensorBoard (0 = raw)"));
  smoothing_value_ = new QLabel(this);
  chooser_ = new QComboBox(this);
  chooser_->setObjectName("metric_chooser");
  chooser_->setMinimumContentsLength(18);
  auto* controls = new QHBoxLayout();
  controls->addWidget(new QLabel(tr("Smoothing:"), this));
  controls->addWidget(smoothing_);
  controls->addWidget(smoothing_value_);
  controls->addStretch(1);
  controls->addWidget(new QLabel(tr("Other metric:"), this));
  controls->addWidget(chooser_);

  return controls;
}

// The stage sections of a pipeline run above a grid of the chosen metrics'
// charts and one chart of any other metric.
QWidget* RunMonitorWidget::build_chart_area() {
  auto* chart_area = new QWidget(this);
  auto* chart_column = new QVBoxLayout(chart_area);
  chart_column->setContentsMargins(0, 0, 0, 0);
  chart_column->setSpacing(4);
  // A pipeline run: one section per stage with its own progress and charts.
  // It scrolls rather than squash its charts when the window is short.
  stages_scroll_ = new QScrollArea(chart_area);
  stages_scroll_->setWidgetResizable(true);
  stages_scroll_->setFrameShape(QFrame::NoFrame);
  stages_ = new StageSections(stages_scroll_, {.max_points = options_.max_points});
  stages_->setObjectName("stages");
  stages_scroll_->setWidget(stages_);
  stages_scroll_->hide();
  chart_column->addWidget(stages_scroll_, 3);
  auto* grid = new QGridLayout();
  grid->setSpacing(4);
  chart_column->addLayout(grid, 2);
  MetricChartOptions chart_options;
  chart_options.max_points = options_.max_points;
  int cell = 0;
  for (const QString& metric : options_.charts) {
    chart_options.log_scale = options_.log_scale_charts.contains(metric);
    auto* chart = new MetricChartView(chart_area, chart_options);
    chart->setObjectName(metric);
    chart->set_title(metric_chart_title(metric));
    charts_.insert(metric, chart);
    grid->addWidget(chart, cell / 3, cell % 3);
    ++cell;
  }
  chart_options.log_scale = false;
  custom_chart_ = new MetricChartView(chart_area, chart_options);
  custom_chart_->setObjectName("custom_chart");
  custom_chart_->set_title(tr("(choose a metric)"));
  grid->addWidget(custom_chart_, cell / 3, cell % 3);
  ++cell;
  // The grid's free cell (4 charts and the custom one leave the sixth).
  validation_images_ = new ValidationImagesView(chart_area);
  validation_images_->setObjectName("validation_images");
  grid->addWidget(validation_images_, cell / 3, cell % 3);

  return chart_area;
}

// Checkpoints and outputs, and the evaluation report.
void RunMonitorWidget::build_lower_tabs() {
  log_tabs_ = new QTabWidget(this);
  log_tabs_->setObjectName("log_tabs");
  files_ = new QListWidget(this);
  files_->setObjectName("files");
  log_tabs_->addTab(files_, tr("Checkpoints && outputs"));
  evaluation_ = new EvaluationView(this);
  evaluation_->setObjectName("evaluation");
  // Scrolls inside its tab: its tables and histograms must not set the
  // height of the whole lower pane (a pipeline's stage charts need it).
  auto* evaluation_scroll = new QScrollArea(this);
  evaluation_scroll->setWidgetResizable(true);
  evaluation_scroll->setFrameShape(QFrame::NoFrame);
  evaluation_scroll->setWidget(evaluation_);
  log_tabs_->addTab(evaluation_scroll, tr("Evaluate"));
  connect(evaluation_, &EvaluationView::compare_requested, this, &RunMonitorWidget::compare_requested);
  connect(files_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { emit file_activated(item->data(Qt::UserRole).toString()); });
}

void RunMonitorWidget::connect_controls() {
  refresh_timer_.setSingleShot(true);
  refresh_timer_.setInterval(options_.refresh_interval_ms);
  connect(&refresh_timer_, &QTimer::timeout, this, &RunMonitorWidget::refresh);
  stagger_timer_.setSingleShot(true);
  stagger_timer_.setInterval(0);
  connect(&stagger_timer_, &QTimer::timeout, this, &RunMonitorWidget::refresh_next_chart);
  connect(smoothing_, &QSlider::valueChanged, this, [this](int v) { set_smoothing(v / 100.0); });
  connect(chooser_, &QComboBox::currentTextChanged, this, [this](const QString& metric) {
    if (metric.isEmpty()) return;
    custom_chart_->set_title(metric_chart_title(metric));
    custom_chart_->set_metric(metric);
  });
  connect(stop_, &QPushButton::clicked, this, [this] {
    if (controller_) controller_->stop();
    emit stop_requested();
    update_buttons();
  });
  connect(resume_, &QPushButton::clicked, this, [this] {
    if (model_ && !model_->run_dir().isEmpty()) emit resume_requested(model_->run_dir());
  });
}

RunMonitorWidget::~RunMonitorWidget() = default;

void RunMonitorWidget::reload_evaluation() {
  const QString path = model_ && !model_->run_dir().isEmpty() ? model_->run_dir() + QStringLiteral("/evaluation/evaluation.json") : QString();
  if (!path.isEmpty() && QFileInfo::exists(path))
    evaluation_->load(path);
  else
    evaluation_->clear();
}

RunController* RunMonitorWidget::controller() const { return controller_.data(); }

void RunMonitorWidget::set_controller(RunController* controller) {
  if (controller_) disconnect(controller_, nullptr, this, nullptr);
  controller_ = controller;
  if (controller_) {
    connect(controller_, &RunController::live_changed, this, &RunMonitorWidget::update_buttons);
    connect(controller_, &RunController::finished, this, [this] {
      dirty_labels_ = true;
      refresh();
    });
  }
  nodes_->set_launcher(controller ? controller->launcher() : nullptr);
  set_model(controller ? controller->model() : nullptr);
}

void RunMonitorWidget::set_model(const app::RunModel* model) {
  if (model_) disconnect(model_, nullptr, this, nullptr);
  model_ = model;
  bind_model();
}

void RunMonitorWidget::bind_model() {
  for (auto it = charts_.begin(); it != charts_.end(); ++it) {
    it.value()->clear_curves();
    if (model_) it.value()->add_curve(it.key(), model_, it.key());
  }
  stages_->set_model(model_);
  pipeline_sized_ = false;
  custom_chart_->clear_curves();
  if (model_) custom_chart_->add_curve(chooser_->currentText(), model_, chooser_->currentText());
  files_->clear();
  file_items_.clear();
  if (model_) {
    connect(model_, &app::RunModel::metric_appended, this, &RunMonitorWidget::on_metric_appended);
    connect(model_, &app::RunModel::log_appended, this, &RunMonitorWidget::on_log_appended);
    connect(model_, &app::RunModel::status_changed, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::progress_changed, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::stats_changed, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::restarted, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::run_started, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::checkpoint_added, this, [this](const app::CheckpointInfo& c) {
      add_file_entry(tr("checkpoint (%1) at step %2: %3").arg(c.kind).arg(c.step).arg(c.path), c.path);
    });
    connect(model_, &app::RunModel::artifact_added, this, [this](const app::Artifact& a) {
      if (a.kind == QLatin1String(app::k_validation_image_kind)) {
        validation_images_->show_images(app::latest_validation_images(model_->artifacts()));
        return;
      }
      add_file_entry(tr("%1 at step %2: %3").arg(a.kind).arg(a.step).arg(a.path), a.path);
      if (a.kind == QLatin1String("evaluation")) reload_evaluation();
    });
    connect(model_, &app::RunModel::run_started, this, &RunMonitorWidget::reload_evaluation);
    connect(model_, &app::RunModel::stage_changed, this, [this] {
      dirty_labels_ = true;
      schedule();
    });
    connect(model_, &app::RunModel::cleared, this, [this] { bind_model(); }, Qt::QueuedConnection);
    for (const app::CheckpointInfo& c : model_->checkpoints()) {
      add_file_entry(tr("checkpoint (%1) at step %2: %3").arg(c.kind).arg(c.step).arg(c.path), c.path);
    }
    // Three slices per validation would bury the checkpoints: they have their panel.
    for (const app::Artifact& a : model_->artifacts()) {
      if (a.kind != QLatin1String(app::k_validation_image_kind))
        add_file_entry(tr("%1 at step %2: %3").arg(a.kind).arg(a.step).arg(a.path), a.path);
    }
    for (int rank : model_->log_ranks()) ensure_log_tab(rank);
    for (const QString& name : model_->metric_names()) dirty_metrics_.insert(name);
  }
  for (LogView* view : std::as_const(logs_)) view->set_source(model_, view->rank());
  validation_images_->show_images(model_ ? app::latest_validation_images(model_->artifacts())
                                         : app::ValidationImageSet{});
  reload_evaluation();
  dirty_names_ = true;
  dirty_labels_ = true;
  refresh();
}

// One entry per file (issue 38): last.safetensors is written again at every
// checkpoint step, and its entry then says the newest step.
void RunMonitorWidget::add_file_entry(const QString& text, const QString& path) {
  if (QListWidgetItem* known = file_items_.value(path)) {
    known->setText(text);
    return;
  }
  auto* item = new QListWidgetItem(text, files_);
  if (!path.isEmpty()) file_items_.insert(path, item);
  item->setData(Qt::UserRole, path);
  item->setToolTip(path);
}

QStringList RunMonitorWidget::listed_file_paths() const {
  QStringList paths;
  for (int i = 0; i < files_->count(); ++i) paths << files_->item(i)->data(Qt::UserRole).toString();
  return paths;
}

QList<int> RunMonitorWidget::log_ranks() const {
  QList<int> ranks = logs_.keys();
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

void RunMonitorWidget::set_smoothing(double weight) {
  const int v = static_cast<int>(std::lround(weight * 100));
  if (smoothing_->value() != v) {
    smoothing_->setValue(v);  // comes back here through valueChanged
    return;
  }
  smoothing_value_->setText(QString::number(weight, 'f', 2));
  for (MetricChartView* chart : std::as_const(charts_)) chart->set_smoothing(weight);
  stages_->set_smoothing(weight);
  custom_chart_->set_smoothing(weight);
}

double RunMonitorWidget::smoothing() const { return smoothing_->value() / 100.0; }

void RunMonitorWidget::schedule() {
  if (!refresh_timer_.isActive()) refresh_timer_.start();
}

void RunMonitorWidget::on_metric_appended(const QString& name, int first_new_index) {
  dirty_metrics_.insert(name);
  if (first_new_index == 0) {
    dirty_names_ = true;  // a metric seen for the first time
    stages_->chart_for_metric(name);
  }
  dirty_labels_ = true;
  schedule();
}

void RunMonitorWidget::on_log_appended(int rank, int) { ensure_log_tab(rank); }

void RunMonitorWidget::ensure_log_tab(int rank) {
  if (logs_.contains(rank)) return;
  auto* view = new LogView(log_tabs_);
  view->set_source(model_, rank);
  logs_.insert(rank, view);
  // Ranks in order, the launcher (-1) after them, the files tab last.
  QList<int> order;
  for (int r : log_ranks()) {
    if (r >= 0) order << r;
  }
  if (logs_.contains(-1)) order << -1;
  log_tabs_->insertTab(static_cast<int>(order.indexOf(rank)), view,
                       rank < 0 ? tr("launcher") : tr("rank %1").arg(rank));
  if (log_tabs_->count() == 2) log_tabs_->setCurrentIndex(0);
}

void RunMonitorWidget::update_chooser() {
  const QString current = chooser_->currentText();
  QStringList names = model_ ? model_->metric_names() : QStringList();
  names.sort();
  const QSignalBlocker block(chooser_);
  chooser_->clear();
  chooser_->addItems(names);
  QString pick = current;
  if (pick.isEmpty() || !names.contains(pick)) {
    pick.clear();
    for (const QString& n : names) {  // the first metric without a chart of its own
      if (!charts_.contains(n)) {
        pick = n;
        break;
      }
    }
  }
  chooser_->setCurrentText(pick);
  if (custom_chart_->metric(0) != pick) {
    custom_chart_->set_title(pick.isEmpty() ? tr("(choose a metric)") : metric_chart_title(pick));
    custom_chart_->set_metric(pick);
  }
}

void RunMonitorWidget::refresh() {
  refresh_timer_.stop();
  ++refresh_count_;
  if (dirty_names_) {
    dirty_names_ = false;
    update_chooser();
  }
  for (const QString& name : std::as_const(dirty_metrics_)) {
    MetricChartView* chart = charts_.contains(name) ? charts_.value(name) : stages_->chart_for_metric(name);
    if (chart && !pending_charts_.contains(chart)) pending_charts_ << chart;
    if (custom_chart_->metric(0) == name && !pending_charts_.contains(custom_chart_)) pending_charts_ << custom_chart_;
  }
  dirty_metrics_.clear();
  if (dirty_labels_) {
    dirty_labels_ = false;
    update_labels();
  }
  refresh_next_chart();
}

void RunMonitorWidget::refresh_next_chart() {
  // One chart per event-loop turn: its repaint and other events get in
  // between, so a busy run never freezes the window for all charts at once.
  while (!pending_charts_.isEmpty()) {
    QPointer<MetricChartView> chart = pending_charts_.takeFirst();
    if (!chart) continue;
    chart->refresh();
    break;
  }
  if (!pending_charts_.isEmpty()) stagger_timer_.start();
}

void RunMonitorWidget::refresh_now() {
  refresh();
  while (!pending_charts_.isEmpty()) refresh_next_chart();
  stagger_timer_.stop();
}

QString RunMonitorWidget::status_text() const { return status_->text(); }

QString RunMonitorWidget::step_text() const { return step_->text(); }
QString RunMonitorWidget::throughput_text() const { return throughput_->text(); }
QString RunMonitorWidget::eta_text() const { return eta_->text(); }
QString RunMonitorWidget::garbage_text() const { return garbage_->isVisibleTo(this) ? garbage_->text() : QString(); }

void RunMonitorWidget::update_labels() {
  const app::RunMonitorTexts t = app::run_monitor_texts(model_);
  title_->setText(t.title);
  if (!model_) {
    status_->clear();
    update_buttons();
    return;
  }
  title_->setToolTip(t.title_tooltip);
  status_->setText(t.status);
  status_->setStyleSheet(
      QStringLiteral("color:white; background:%1; padding:2px 8px; border-radius:8px;").arg(t.status_colour));
  progress_->setRange(0, t.progress_maximum);
  progress_->setValue(t.progress_value);
  step_->setText(t.step);
  update_chart_area(t);
  throughput_->setText(t.throughput);
  eta_->setText(t.eta);
  restarts_->setText(t.restarts);
  restarts_->setVisible(t.show_restarts);
  garbage_->setText(t.unusable_lines);
  garbage_->setToolTip(t.unusable_lines_tooltip);
  garbage_->setVisible(!t.unusable_lines.isEmpty());
  failure_->setText(t.failure);
  failure_->setVisible(t.show_failure);
  update_buttons();
}

void RunMonitorWidget::update_chart_area(const app::RunMonitorTexts& t) {
  stages_scroll_->setVisible(t.pipeline);
  for (MetricChartView* chart : std::as_const(charts_)) chart->setVisible(t.show_metric_charts);
  if (!t.pipeline) return;
  stages_->update_progress();
  // Room for every stage's charts without scrolling where the window allows.
  stages_scroll_->setMinimumHeight(std::min(stages_->sizeHint().height(), 560));
  if (pipeline_sized_) return;
  // The stages' charts matter more than the logs here. Proportions and
  // stretch, not pixels: a monitor tab not shown yet has no height.
  pipeline_sized_ = true;
  split_->setStretchFactor(0, 4);
  split_->setStretchFactor(1, 1);
  split_->setSizes({4000, 1000});
}

void RunMonitorWidget::update_buttons() {
  const bool live = controller_ && controller_->is_live();
  stop_->setEnabled(live && !controller_->stop_requested());
  stop_->setVisible(controller_ && controller_->source() == RunController::Source::launched);
  const app::RunStatus status = model_ ? model_->status() : app::RunStatus::pending;
  const bool resumable = status == app::RunStatus::stopped || status == app::RunStatus::failed ||
                         status == app::RunStatus::unknown;
  resume_->setEnabled(!live && model_ && !model_->run_dir().isEmpty() && resumable);
}

}  // namespace medsynth::ui
