// Chooses one of app::builtin_templates() for a new job: a combo box of the
// seed workflows, the chosen one's description, and - for those the engine
// cannot train yet - their pending reason (JobEditorWidget then keeps Launch
// disabled). Part of JobEditorWidget.
#pragma once

#include <QList>
#include <QWidget>

#include "app/jobs/job_templates.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
QT_END_NAMESPACE

namespace medsynth::ui {

class TemplatePicker : public QWidget {
  Q_OBJECT

 public:
  explicit TemplatePicker(QWidget* parent = nullptr);

  QString current_id() const;
  bool select(const QString& id);  // only moves the selection
  // The editor's job is now template `id`: choosing another one only
  // describes it, and the details say the job stays as it is until "New from
  // template" (issue 53 item 8: the description changed, the job did not).
  void show_loaded(const QString& id);
  QString details_text() const;
  // The editor holds a job opened from `path` (task `task`), not a template:
  // no template is selected and the details say what is being edited, so the
  // previous template's name and description do not pass for the job's.
  void show_opened_job(const QString& path, const QString& task);
  QList<app::JobTemplate> templates() const { return templates_; }

 signals:
  // "New from template" pressed for the selected template.
  void template_chosen(const QString& id);

 private:
  void show_details();

  QList<app::JobTemplate> templates_;
  QComboBox* combo_ = nullptr;
  QLabel* details_ = nullptr;
  QPushButton* use_ = nullptr;
  QString loaded_;  // the template the editor's job came from; empty for an opened file
};

}  // namespace medsynth::ui
