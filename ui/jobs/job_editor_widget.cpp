#include "ui/jobs/job_editor_widget.hpp"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/jobs/job_plan_view.hpp"
#include "app/jobs/job_templates.hpp"
#include "ui/jobs/field_editor.hpp"
#include "ui/jobs/job_form.hpp"
#include "ui/jobs/template_picker.hpp"
#include "ui/jobs/yaml_view.hpp"
#include "app/settings/settings_store.hpp"

namespace medsynth::ui {

JobEditorWidget::JobEditorWidget(app::JobDocument* document, app::SettingsStore* settings, QWidget* parent)
    : QWidget(parent), document_(document), settings_(settings) {
  picker_ = new TemplatePicker(this);
  QPushButton* save = nullptr;
  QPushButton* save_as = nullptr;
  build_file_controls(&save, &save_as);
  build_pending_banner();
  QWidget* split = build_editors();
  build_problem_views();
  build_launch_controls();
  build_launch_target();
  build_layout(save, save_as, split);
  connect_controls(save, save_as);
  rebuild_recent_menu();
  update_state();
}

void JobEditorWidget::build_file_controls(QPushButton** save, QPushButton** save_as) {
  open_ = new QToolButton(this);
  open_->setText(tr("Open…"));
  open_->setPopupMode(QToolButton::MenuButtonPopup);
  recent_menu_ = new QMenu(tr("Recent jobs"), open_);
  open_->setMenu(recent_menu_);
  *save = new QPushButton(tr("Save"), this);
  *save_as = new QPushButton(tr("Save as…"), this);
  file_label_ = new QLabel(this);
  file_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

void JobEditorWidget::build_pending_banner() {
  pending_banner_ = new QLabel(this);
  pending_banner_->setObjectName("pending_banner");
  pending_banner_->setWordWrap(true);
  pending_banner_->setStyleSheet(QStringLiteral("background:#fff3cd; color:#664d03; padding:4px; border-radius:3px;"));
  pending_banner_->hide();
}

QWidget* JobEditorWidget::build_editors() {
  form_ = new JobForm(document_, this);
  yaml_ = new YamlView(document_, this);
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(form_);
  split->addWidget(yaml_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  return split;
}

void JobEditorWidget::build_problem_views() {
  problems_label_ = new QLabel(this);
  problems_label_->setObjectName("problems_label");
  problems_ = new QListWidget(this);
  problems_->setObjectName("problems");
  problems_->setMaximumHeight(90);
}

void JobEditorWidget::build_launch_controls() {
  batch_label_ = new QLabel(this);
  batch_label_->setObjectName("effective_batch");
  batch_label_->setToolTip(
      tr("Samples per optimizer step over all processes: batch size per process × "
         "processes × gradient accumulation steps."));
  plan_label_ = new QLabel(this);
  plan_label_->setObjectName(QStringLiteral("plan"));
  plan_label_->setWordWrap(true);
  plan_label_->setToolTip(
      tr("The planner's estimate of one training step (medsynth-engine validate --plan): "
         "peak memory per process and time per optimizer step, from the networks' sizes and "
         "rates measured on our machines (docs/performance.md, \"The planner\")."));
  launch_hint_ = new QLabel(this);
  launch_hint_->setObjectName("launch_hint");
  launch_hint_->setWordWrap(true);
  launch_ = new QPushButton(tr("Launch"), this);
  launch_->setObjectName("launch");
  launch_->setToolTip(tr("Run this job on this machine (Ctrl+R)"));
  QFont bold = launch_->font();
  bold.setBold(true);
  launch_->setFont(bold);
}

void JobEditorWidget::build_launch_target() {
  target_ = new QComboBox(this);
  target_->setObjectName("launch_target");
  target_->setToolTip(
      tr("Where Launch runs the job: this machine, the nodes of an SSH cluster, or a SLURM cluster "
         "(clusters are set up in the Cluster view)"));
  set_launch_targets({});
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    const QString cluster = launch_target();
    launch_->setToolTip(cluster.isEmpty() ? tr("Run this job on this machine (Ctrl+R)")
                                          : tr("Run this job on %1 (Ctrl+R)").arg(cluster));
    update_plan();
    emit launch_target_changed(cluster);
  });
}

void JobEditorWidget::build_layout(QPushButton* save, QPushButton* save_as, QWidget* split) {
  auto* file_row = new QHBoxLayout();
  file_row->addWidget(open_);
  file_row->addWidget(save);
  file_row->addWidget(save_as);
  file_row->addWidget(file_label_, 1);
  auto* bottom = new QHBoxLayout();
  bottom->addWidget(batch_label_, 1);
  bottom->addWidget(launch_hint_, 1);
  bottom->addWidget(new QLabel(tr("Run on"), this));
  bottom->addWidget(target_);
  bottom->addWidget(launch_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(picker_);
  layout->addLayout(file_row);
  layout->addWidget(pending_banner_);
  layout->addWidget(split, 1);
  layout->addWidget(problems_label_);
  layout->addWidget(problems_);
  layout->addWidget(plan_label_);
  layout->addLayout(bottom);
}

void JobEditorWidget::connect_controls(QPushButton* save, QPushButton* save_as) {
  connect(picker_, &TemplatePicker::template_chosen, this, [this](const QString& id) {
    if (confirm_discard()) load_template(id);
  });
  connect(open_, &QToolButton::clicked, this, &JobEditorWidget::open_dialog);
  connect(save, &QPushButton::clicked, this, &JobEditorWidget::save);
  connect(save_as, &QPushButton::clicked, this, &JobEditorWidget::save_as_dialog);
  connect(launch_, &QPushButton::clicked, this, [this] {
    commit_pending_edits();
    if (can_launch()) emit launch_requested();
  });
  connect(problems_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { form_->reveal(item->data(Qt::UserRole).toString()); });
  connect(document_, &app::JobDocument::changed, this, &JobEditorWidget::update_state);
  connect(document_, &app::JobDocument::issues_changed, this, &JobEditorWidget::update_state);
  connect(document_, &app::JobDocument::path_changed, this, &JobEditorWidget::update_state);
  connect(document_, &app::JobDocument::modified_changed, this, &JobEditorWidget::update_state);
  connect(form_, &JobForm::unplaced_issues_changed, this, &JobEditorWidget::update_problems);
}

bool JobEditorWidget::load_template(const QString& id) {
  const std::optional<app::JobTemplate> t = app::find_template(id);
  if (!t) {
    emit error_message(tr("No template named \"%1\".").arg(id));
    return false;
  }
  picker_->select(id);
  pristine_template_text_ = t->yaml;  // before the load: its changed() asks title()
  document_->load_template(*t);
  picker_->show_loaded(id);
  emit status_message(tr("New job from the template \"%1\".").arg(t->title));
  return true;
}

bool JobEditorWidget::open_file(const QString& path) {
  QString error;
  if (!document_->load(path, &error)) {
    emit error_message(error.isEmpty() ? tr("Cannot open %1.").arg(path) : error);
    return false;
  }
  if (settings_) settings_->add_recent_job(path);
  rebuild_recent_menu();
  picker_->show_opened_job(path, document_->value(QStringLiteral("task")).toString());
  emit status_message(tr("Opened %1.").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool JobEditorWidget::save() {
  if (document_->path().isEmpty()) {
    save_as_dialog();
    return !document_->path().isEmpty() && !document_->is_modified();
  }
  return save_as(document_->path());
}

bool JobEditorWidget::save_as(const QString& path) {
  commit_pending_edits();
  QString error;
  if (!document_->save(path, &error)) {
    emit error_message(error.isEmpty() ? tr("Cannot save %1.").arg(path) : error);
    return false;
  }
  if (settings_) settings_->add_recent_job(path);
  rebuild_recent_menu();
  emit status_message(tr("Saved %1.").arg(QDir::toNativeSeparators(path)));
  return true;
}

void JobEditorWidget::open_dialog() {
  if (!confirm_discard()) return;
  const QString start = document_->path().isEmpty() ? QString() : QFileInfo(document_->path()).absolutePath();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open job"), start, tr("Job files (*.yaml *.yml *.json);;All files (*)"));
  if (!path.isEmpty()) open_file(path);
}

void JobEditorWidget::save_as_dialog() {
  QString suggestion = document_->path();
  if (suggestion.isEmpty()) suggestion = document_->value(QStringLiteral("name")).toString() + QStringLiteral(".yaml");
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save job"), suggestion, tr("YAML (*.yaml *.yml);;JSON (*.json)"));
  if (!path.isEmpty()) save_as(path);
}

bool JobEditorWidget::confirm_discard() {
  commit_pending_edits();
  if (!document_->is_modified()) return true;
  // An untouched template is "modified" (never saved) but holds no work.
  if (document_->path().isEmpty() && document_->yaml() == pristine_template_text_) return true;
  const auto answer = QMessageBox::question(this, tr("Unsaved job"), tr("The job has unsaved changes. Discard them?"),
                                            QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
  return answer == QMessageBox::Discard;
}

void JobEditorWidget::set_world_size(int world_size) {
  world_size_ = std::max(1, world_size);
  update_batch();
  update_plan();
}

void JobEditorWidget::set_machine_info(const app::MachineInfo& info) {
  machine_ = info;
  update_plan();
}

void JobEditorWidget::update_plan() {
  const auto& spec = document_->spec();
  if (!spec) {
    plan_label_->setText(tr("Estimate: once the job is valid."));
    plan_label_->setStyleSheet(QString());
    return;
  }
  app::PlanTarget target;
  target.cores = machine_.cores;
  target.memory_gib = machine_.memory_gib;
  target.gpu = machine_.cuda && !machine_.gpus.isEmpty();
  target.processes = world_size_;
  target.cluster = !launch_target().isEmpty();
  const app::JobPlanView view = app::job_plan_view(*spec, target);
  plan_label_->setText(view.warning.isEmpty() ? view.summary : view.summary + QStringLiteral("\n⚠ ") + view.warning);
  plan_label_->setStyleSheet(view.warning.isEmpty() ? QString() : QStringLiteral("color: #c05a00;"));
}

int JobEditorWidget::effective_batch() const { return document_->effective_batch(world_size_); }

QString JobEditorWidget::effective_batch_text() const { return batch_label_->text(); }

void JobEditorWidget::set_launch_blocked(bool blocked, const QString& reason) {
  launch_blocked_ = blocked;
  launch_blocked_reason_ = reason;
  update_state();
}

bool JobEditorWidget::can_launch(QString* why) const {
  QString reason;
  if (launch_blocked_) {
    reason = launch_blocked_reason_.isEmpty() ? tr("a run is in progress") : launch_blocked_reason_;
  } else {
    document_->is_launchable(&reason);
    if (reason.isEmpty() && !document_->is_launchable()) reason = tr("the job has problems");
  }
  if (why) *why = reason;
  return reason.isEmpty();
}

void JobEditorWidget::commit_pending_edits() {
  if (yaml_->has_pending_edit()) yaml_->commit_now();
}

QString JobEditorWidget::title() const {
  if (document_->path().isEmpty() && document_->yaml() == pristine_template_text_) return tr("new job");
  QString name = document_->path().isEmpty() ? tr("untitled job") : QFileInfo(document_->path()).fileName();
  if (document_->is_modified()) name += '*';
  return name;
}

void JobEditorWidget::update_state() {
  file_label_->setText(document_->path().isEmpty()
                           ? tr("Not saved yet%1").arg(document_->is_modified() ? QStringLiteral(" *") : QString())
                           : QDir::toNativeSeparators(document_->path()) + (document_->is_modified() ? " *" : ""));
  const QString pending = document_->pending_reason();
  pending_banner_->setText(tr("This template shows a workflow the engine cannot train yet: %1").arg(pending));
  pending_banner_->setVisible(!pending.isEmpty());
  QString why;
  const bool ok = can_launch(&why);
  launch_->setEnabled(ok);
  launch_hint_->setText(ok ? QString() : tr("Cannot launch: %1").arg(why));
  update_batch();
  update_problems();
  update_plan();
  emit title_changed(title());
}

void JobEditorWidget::update_batch() {
  const int batch = document_->value(QStringLiteral("training.batch_size")).toInt();
  const int accumulation = document_->value(QStringLiteral("training.gradient_accumulation_steps")).toInt();
  const int effective = effective_batch();
  if (effective <= 0) {
    batch_label_->setText(tr("Effective batch: unknown (batch size or accumulation not valid)"));
    return;
  }
  batch_label_->setText(tr("Effective batch: %1 = batch %2 × %3 process(es) × %4 accumulation step(s)")
                            .arg(effective)
                            .arg(batch)
                            .arg(world_size_)
                            .arg(accumulation));
}

void JobEditorWidget::update_problems() {
  const QList<app::FieldIssue> all = document_->issues();
  const QList<app::FieldIssue> unplaced = form_->unplaced_issues();
  problems_->clear();
  for (const app::FieldIssue& issue : unplaced) {
    QString text = issue.to_string();
    if (issue.line > 0) text = tr("line %1: %2").arg(issue.line).arg(text);
    auto* item = new QListWidgetItem(text, problems_);
    item->setData(Qt::UserRole, issue.path);
  }
  problems_->setVisible(!unplaced.isEmpty());
  if (all.isEmpty()) {
    problems_label_->setText(tr("✓ The job is valid."));
  } else {
    problems_label_->setText(tr("%n problem(s): shown next to their fields", nullptr, static_cast<int>(all.size())) +
                             (unplaced.isEmpty() ? QString() : tr("; the others are listed below.")));
  }
}

void JobEditorWidget::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = settings_ ? settings_->recent_jobs() : QStringList();
  for (const QString& path : recent) {
    recent_menu_->addAction(QDir::toNativeSeparators(path), this, [this, path] {
      if (confirm_discard()) open_file(path);
    });
  }
  if (recent.isEmpty()) recent_menu_->addAction(tr("(no recent jobs)"))->setEnabled(false);
}

void JobEditorWidget::set_launch_targets(const QStringList& clusters) {
  const QString keep = launch_target();
  const QSignalBlocker block(target_);
  target_->clear();
  target_->addItem(tr("This machine"), QString());
  for (const QString& c : clusters) target_->addItem(c, c);
  const int i = target_->findData(keep);
  target_->setCurrentIndex(i >= 0 ? i : 0);
  if (i < 0 && !keep.isEmpty()) emit launch_target_changed(QString());
}

QString JobEditorWidget::launch_target() const { return target_ ? target_->currentData().toString() : QString(); }

void JobEditorWidget::set_launch_target(const QString& cluster) {
  const int i = target_->findData(cluster);
  if (i >= 0) target_->setCurrentIndex(i);
}

}  // namespace medsynth::ui
