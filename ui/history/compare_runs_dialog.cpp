#include "ui/history/compare_runs_dialog.hpp"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/runs/run_comparison.hpp"
#include "ui/monitor/metric_chart_view.hpp"

namespace medsynth::ui {

namespace {

// The runs' folder names: the job differences' column headers and the title.
QStringList run_names(const QStringList& run_dirs) {
  QStringList names;
  for (const QString& dir : run_dirs) names << QFileInfo(dir).fileName();
  return names;
}

}  // namespace

CompareRunsDialog::CompareRunsDialog(const QStringList& run_dirs, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Compare runs"));
  resize(1000, 600);
  build_chart_controls();
  const QStringList names = run_names(run_dirs);
  add_runs(run_dirs, names);

  auto* controls = new QHBoxLayout();
  controls->addWidget(new QLabel(tr("Smoothing:"), this));
  controls->addWidget(smoothing_);
  controls->addWidget(log_scale_);
  controls->addStretch(1);
  auto* split = new QSplitter(this);
  split->addWidget(metrics_);
  split->addWidget(chart_);
  split->setStretchFactor(1, 1);
  QWidget* diff_box = build_job_differences(run_dirs, names);
  auto* vertical = new QSplitter(Qt::Vertical, this);
  vertical->addWidget(split);
  vertical->addWidget(diff_box);
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(names.join(QStringLiteral("  vs  ")), this));
  layout->addLayout(controls);
  layout->addWidget(vertical, 1);
  layout->addWidget(buttons);

  refresh_timer_.setSingleShot(true);
  refresh_timer_.setInterval(100);
  connect(&refresh_timer_, &QTimer::timeout, this, &CompareRunsDialog::refresh);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(metrics_, &QListWidget::currentTextChanged, this, [this](const QString& m) {
    if (!m.isEmpty()) set_metric(m);
  });
  connect(smoothing_, &QSlider::valueChanged, this, [this](int v) { chart_->set_smoothing(v / 100.0); });
  connect(log_scale_, &QCheckBox::toggled, chart_, &MetricChartView::set_log_scale);
  chart_->set_smoothing(smoothing_->value() / 100.0);
  set_metric(metric_);
}

void CompareRunsDialog::build_chart_controls() {
  chart_ = new MetricChartView(this);
  metrics_ = new QListWidget(this);
  metrics_->setObjectName("compare_metrics");
  metrics_->setMaximumWidth(240);
  smoothing_ = new QSlider(Qt::Horizontal, this);
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  log_scale_ = new QCheckBox(tr("Log scale"), this);
}

// One model and tail per run, one curve each on the chart; then the tails start.
void CompareRunsDialog::add_runs(const QStringList& run_dirs, const QStringList& names) {
  app::EventFileTailOptions options;
  options.follow_rank_logs = false;  // curves only
  const QStringList legend = app::distinct_run_labels(names);
  for (const QString& dir : run_dirs) {
    Run run;
    run.run_dir = dir;
    run.model = std::make_unique<app::RunModel>();
    run.model->set_run_dir(dir);
    run.tail = std::make_unique<app::EventFileTail>(run.model.get(), options);
    connect(run.model.get(), &app::RunModel::metric_appended, this, [this](const QString&, int first) {
      if (first == 0) names_dirty_ = true;
      schedule();
    });
    const auto index = static_cast<qsizetype>(runs_.size());
    chart_->add_curve(names[index], run.model.get(), metric_, {}, legend[index]);
    runs_.push_back(std::move(run));
  }
  for (Run& run : runs_) run.tail->start(run.run_dir);
}

// The job diff: what was changed between the runs. Returns the box holding
// its title and table.
QWidget* CompareRunsDialog::build_job_differences(const QStringList& run_dirs, const QStringList& names) {
  const QList<app::JobDifference> diff = app::job_differences(run_dirs);
  differences_ = new QTableWidget(static_cast<int>(diff.size()), static_cast<int>(run_dirs.size()), this);
  differences_->setObjectName(QStringLiteral("job_differences"));
  differences_->setHorizontalHeaderLabels(names);
  differences_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  QStringList paths;
  for (int row = 0; row < diff.size(); ++row) {
    paths << diff[row].path;
    for (int col = 0; col < diff[row].values.size(); ++col)
      differences_->setItem(row, col, new QTableWidgetItem(diff[row].values[col]));
  }
  differences_->setVerticalHeaderLabels(paths);
  differences_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  auto* diff_box = new QWidget(this);
  auto* diff_layout = new QVBoxLayout(diff_box);
  diff_layout->setContentsMargins(0, 0, 0, 0);
  diff_layout->addWidget(new QLabel(
      diff.isEmpty() ? tr("The runs' jobs are the same.") : tr("Job fields that differ (%1):").arg(diff.size()),
      diff_box));
  diff_layout->addWidget(differences_);
  return diff_box;
}

CompareRunsDialog::~CompareRunsDialog() {
  for (Run& run : runs_) run.tail->stop();  // before the models they feed go
}

QStringList CompareRunsDialog::metric_names() const {
  QStringList names;
  for (const Run& run : runs_) {
    for (const QString& n : run.model->metric_names()) {
      if (!names.contains(n)) names << n;
    }
  }
  names.sort();
  return names;
}

void CompareRunsDialog::set_metric(const QString& metric) {
  metric_ = metric;
  chart_->set_title(metric);
  chart_->set_metric(metric);
  log_scale_->setChecked(metric.contains(QLatin1String("loss")));
}

void CompareRunsDialog::schedule() {
  if (!refresh_timer_.isActive()) refresh_timer_.start();
}

void CompareRunsDialog::refresh() {
  if (names_dirty_) update_metric_list();
  chart_->refresh();
}

void CompareRunsDialog::update_metric_list() {
  names_dirty_ = false;
  const QSignalBlocker block(metrics_);
  metrics_->clear();
  metrics_->addItems(metric_names());
  const QList<QListWidgetItem*> current = metrics_->findItems(metric_, Qt::MatchExactly);
  if (!current.isEmpty()) metrics_->setCurrentItem(current.front());
}

}  // namespace medsynth::ui
