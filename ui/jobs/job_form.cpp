#include "ui/jobs/job_form.hpp"

#include <QFormLayout>
#include <QLabel>
#include <QScrollArea>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/jobs/job_field_relations.hpp"
#include "ui/jobs/field_editor.hpp"

namespace medsynth::ui {

namespace {
// "Checkpoints & output": a tab title's "&" marks a shortcut letter unless doubled.
QString tab_text(QString group) { return group.replace('&', QStringLiteral("&&")); }
}  // namespace

JobForm::JobForm(app::JobDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("job_form_tabs");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);

  const QList<app::JobField> catalog = app::job_field_catalog();
  QStringList group_names = app::job_field_groups();
  for (const app::JobField& f : catalog) {
    if (!group_names.contains(f.group)) group_names << f.group;  // a group the list forgot still shows
  }
  for (const QString& name : group_names) {
    auto* page = new QWidget();
    auto* form = new QFormLayout(page);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    if (name == QLatin1String("Parallel computing")) {
      auto* note = new QLabel(tr("How many processes run, and how often they may restart, is chosen in the "
                                 "Machine panel (it is the launcher's business, not the job file's). "
                                 "These settings are what every process must agree on."),
                              page);
      note->setWordWrap(true);
      form->addRow(note);
    }
    auto* scroll = new QScrollArea();
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(page);
    Group g;
    g.name = name;
    g.form = form;
    g.tab = tabs_->addTab(scroll, tab_text(name));
    groups_ << g;
  }

  for (const app::JobField& f : catalog) {
    const int gi = static_cast<int>(group_names.indexOf(f.group));
    Group& g = groups_[gi];
    auto* editor = new FieldEditor(f, g.form->parentWidget());
    auto* label = new QLabel(f.label.isEmpty() ? f.path : f.label, g.form->parentWidget());
    label->setToolTip(f.help.isEmpty() ? f.path : f.help + "\n(" + f.path + ")");
    label->setBuddy(editor->input());
    g.form->addRow(label, editor);
    if (f.advanced) g.advanced_rows << g.form->rowCount() - 1;
    editors_.insert(f.path, editor);
    labels_.insert(f.path, label);
    group_of_.insert(f.path, gi);
    connect(editor, &FieldEditor::edited, this, &JobForm::on_edited);
  }
  for (Group& g : groups_) {
    if (g.advanced_rows.isEmpty()) continue;
    auto* toggle = new QToolButton(g.form->parentWidget());
    toggle->setCheckable(true);
    toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toggle->setArrowType(Qt::RightArrow);
    toggle->setText(tr("Advanced settings (%1)").arg(g.advanced_rows.size()));
    toggle->setAutoRaise(true);
    // The toggle sits above the advanced rows, which were appended after the basic ones.
    g.form->insertRow(g.advanced_rows.front(), toggle);
    for (int& row : g.advanced_rows) ++row;
    connect(toggle, &QToolButton::toggled, this, &JobForm::set_advanced_visible);
    advanced_buttons_ << toggle;
  }
  set_advanced_visible(false);

  connect(document_, &app::JobDocument::changed, this, &JobForm::load_values);
  connect(document_, &app::JobDocument::issues_changed, this, &JobForm::show_issues);
  load_values();
  show_issues();
}

void JobForm::set_advanced_visible(bool visible) {
  advanced_visible_ = visible;
  update_rows();
  for (QToolButton* b : advanced_buttons_) {
    const QSignalBlocker block(b);
    b->setChecked(visible);
    b->setArrowType(visible ? Qt::DownArrow : Qt::RightArrow);
  }
}

void JobForm::update_rows() {
  QList<bool> group_applies(groups_.size(), false);
  for (auto it = editors_.cbegin(); it != editors_.cend(); ++it) {
    const app::JobField& f = it.value()->field();
    const bool applies = app::job_field_applies(f.path, task_, first_stage_);
    if (applies) group_applies[group_of_.value(f.path)] = true;
    groups_[group_of_.value(f.path)].form->setRowVisible(it.value(), applies && (!f.advanced || advanced_visible_));
    QLabel* label = labels_.value(f.path);
    const QString base = f.label.isEmpty() ? f.path : f.label;
    const QString stage = app::job_field_stage(f.path, task_);
    label->setText(stage.isEmpty() ? base : QStringLiteral("%1 (%2)").arg(base, stage));
    const QString help = f.help.isEmpty() ? f.path : f.help + "\n(" + f.path + ")";
    label->setToolTip(stage.isEmpty() ? help : tr("Applies to the %1.").arg(stage) + "\n" + help);
  }
  // A tab none of whose fields the task reads is not shown: an autoencoder
  // job had an empty "Latent diffusion" tab (issue 53 item 8).
  for (qsizetype g = 0; g < groups_.size(); ++g) tabs_->setTabVisible(groups_[g].tab, group_applies[g]);
}

bool JobForm::group_shown(const QString& group) const {
  for (const Group& g : groups_)
    if (g.name == group) return tabs_->isTabVisible(g.tab);
  return false;
}

void JobForm::reveal(const QString& path) {
  const auto it = group_of_.find(path);
  if (it == group_of_.end()) return;
  tabs_->setCurrentIndex(groups_[*it].tab);
  if (FieldEditor* e = editors_.value(path)) {
    if (e->field().advanced) set_advanced_visible(true);
    e->input()->setFocus();
  }
}

void JobForm::on_edited(const QString& path, const QVariant& value) {
  document_->set_value(path, value);
}

void JobForm::load_values() {
  const app::JobValueLookup value_of = [this](const QString& path) { return document_->value(path); };
  const QString task = document_->value(QStringLiteral("task")).toString();
  const QString first_stage = document_->value(QStringLiteral("ldm.first_stage")).toString();
  if (task != task_ || first_stage != first_stage_) {
    task_ = task;
    first_stage_ = first_stage;
    update_rows();
  }
  for (FieldEditor* e : std::as_const(editors_)) {
    e->set_value(document_->value(e->path()));
    e->set_unused_reason(app::unused_field_reason(e->path(), value_of));
  }
}

FieldEditor* JobForm::editor_for_issue(const QString& issue_path) const {
  QString path = issue_path;
  while (!path.isEmpty()) {
    if (FieldEditor* e = editors_.value(path)) return e;
    const qsizetype cut = std::max(path.lastIndexOf('.'), path.lastIndexOf('['));
    if (cut <= 0) break;
    path.truncate(cut);
  }
  return nullptr;
}

void JobForm::show_issues() {
  QHash<FieldEditor*, QStringList> by_editor;
  unplaced_.clear();
  for (const app::FieldIssue& issue : document_->issues()) {
    FieldEditor* e = issue.path.isEmpty() ? nullptr : editor_for_issue(issue.path);
    if (!e) {
      unplaced_ << issue;
      continue;
    }
    // A sub-path ("[1]") is part of the message: the label sits by the whole field.
    by_editor[e] << (issue.path == e->path() ? issue.message : issue.path.mid(e->path().size()) + ": " + issue.message);
  }
  QHash<int, int> per_group;
  bool advanced_issue = false;
  for (FieldEditor* e : std::as_const(editors_)) {
    const QStringList messages = by_editor.value(e);
    e->set_issues(messages);
    if (!messages.isEmpty()) {
      per_group[group_of_.value(e->path())] += static_cast<int>(messages.size());
      advanced_issue = advanced_issue || e->field().advanced;
    }
  }
  for (int i = 0; i < groups_.size(); ++i) {
    const int n = per_group.value(i);
    const QString name = tab_text(groups_[i].name);
    tabs_->setTabText(groups_[i].tab, n ? QStringLiteral("%1 (%2 ⚠)").arg(name).arg(n) : name);
  }
  if (advanced_issue && !advanced_visible_) set_advanced_visible(true);  // never hide a problem
  emit unplaced_issues_changed();
}

}  // namespace medsynth::ui
