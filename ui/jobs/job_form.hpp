// The job as a form: one tab per group of app::job_field_catalog() (Training,
// Data, Parallel computing, Model, Checkpoints & output), one FieldEditor per
// field with its inline validation message, advanced fields folded away until
// asked for (or until one of them has a problem). Two-way bound to a
// JobDocument: edits go to set_value(); the document's values and issues come
// back on changed()/issues_changed(). Part of JobEditorWidget.
#pragma once

#include <QHash>
#include <QStringList>
#include <QWidget>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_field_catalog.hpp"

QT_BEGIN_NAMESPACE
class QFormLayout;
class QLabel;
class QTabWidget;
class QToolButton;
QT_END_NAMESPACE

namespace medsynth::ui {

class FieldEditor;

class JobForm : public QWidget {
  Q_OBJECT

 public:
  explicit JobForm(app::JobDocument* document, QWidget* parent = nullptr);

  FieldEditor* editor(const QString& path) const { return editors_.value(path); }
  QList<FieldEditor*> editors() const { return editors_.values(); }
  // Issues no editor can show (syntax errors, unknown keys): JobEditorWidget lists them.
  QList<app::FieldIssue> unplaced_issues() const { return unplaced_; }
  // The editor an issue path belongs to: the field itself or its parent
  // ("data.patch_size[1]" -> data.patch_size); null when none.
  FieldEditor* editor_for_issue(const QString& issue_path) const;

  void set_advanced_visible(bool visible);
  bool advanced_visible() const { return advanced_visible_; }
  // Brings a field's tab to the front (e.g. after clicking an issue).
  void reveal(const QString& path);
  // Whether the tab of `group` ("Latent diffusion") is shown: a group is
  // hidden when the job's task reads none of its fields.
  bool group_shown(const QString& group) const;

 signals:
  void unplaced_issues_changed();

 private:
  struct Group {
    QString name;
    QFormLayout* form = nullptr;
    QList<int> advanced_rows;
    int tab = -1;
  };

  void load_values();
  // Each row is shown when the job's task reads its field (and, for an
  // advanced one, while advanced settings are shown); pipeline fields name
  // the stage they apply to.
  void update_rows();
  void show_issues();
  void on_edited(const QString& path, const QVariant& value);

  app::JobDocument* document_;
  QTabWidget* tabs_ = nullptr;
  QList<Group> groups_;
  QHash<QString, FieldEditor*> editors_;
  QHash<QString, int> group_of_;  // path -> index in groups_
  QHash<QString, QLabel*> labels_;
  QString task_, first_stage_;  // of the job shown: which fields apply
  QList<QToolButton*> advanced_buttons_;
  QList<app::FieldIssue> unplaced_;
  bool advanced_visible_ = false;
};

}  // namespace medsynth::ui
