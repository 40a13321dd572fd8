// The "Job" tab: edit a training job and launch it. Composes the template
// picker, the generated form (JobForm, inline messages per field), the YAML
// text (YamlView, two-way), file open/save with recent jobs, a list of the
// problems no field can show, the effective batch (batch × processes ×
// accumulation) as you type, and the Launch button - disabled while the job
// is invalid, comes from a pending template, or a run is in progress. It does
// not launch itself: launch_requested() goes to LaunchCoordinator.
//
// Errors (unreadable file, failed save) are shown here and in error_message().
#pragma once

#include <QString>
#include <QWidget>

#include "app/launch/machine_probe.hpp"

#include "app/jobs/job_document.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QListWidget;
class QMenu;
class QPushButton;
class QToolButton;
QT_END_NAMESPACE

namespace medsynth::app {
class SettingsStore;
}  // namespace medsynth::app

namespace medsynth::ui {

class JobForm;
class TemplatePicker;
class YamlView;

class JobEditorWidget : public QWidget {
  Q_OBJECT

 public:
  // settings may be null (no recent jobs).
  JobEditorWidget(app::JobDocument* document, app::SettingsStore* settings, QWidget* parent = nullptr);

  app::JobDocument* document() const { return document_; }

  // Replaces the document with a template (no questions asked; the menu asks first).
  bool load_template(const QString& id);
  bool open_file(const QString& path);
  bool save();                        // to path(), or asks for one
  bool save_as(const QString& path);
  // Dialogs (File menu, Ctrl+O / Ctrl+S).
  void open_dialog();
  void save_as_dialog();
  // True when it is fine to throw the current text away (asks if modified).
  bool confirm_discard();

  // Processes the next launch runs (MachinePanel): enters the effective batch.
  void set_world_size(int world_size);
  int world_size() const { return world_size_; }
  QString effective_batch_text() const;
  int effective_batch() const;

  // What the Machine panel probed (memory, cores, GPUs): the planner line
  // estimates the job for it.
  void set_machine_info(const app::MachineInfo& info);
  QLabel* plan_label() const { return plan_label_; }

  // While a run this console started is live, Launch waits.
  void set_launch_blocked(bool blocked, const QString& reason = {});
  bool can_launch(QString* why = nullptr) const;
  // Applies an edit still waiting in the YAML view.
  void commit_pending_edits();

  JobForm* form() const { return form_; }
  YamlView* yaml_view() const { return yaml_; }
  TemplatePicker* template_picker() const { return picker_; }
  QPushButton* launch_button() const { return launch_; }
  // The "Run on" chooser: "" = this machine, else a cluster name.
  void set_launch_targets(const QStringList& clusters);
  QString launch_target() const;
  void set_launch_target(const QString& cluster);
  QLabel* effective_batch_label() const { return batch_label_; }
  QMenu* recent_menu() const { return recent_menu_; }

 signals:
  void launch_requested();
  void launch_target_changed(const QString& cluster);
  void status_message(const QString& text);
  void error_message(const QString& text);
  void title_changed(const QString& title);  // "quickstart.yaml*" for the tab

 private:
  // The constructor's steps, in the order the widgets are made (their tab order).
  void build_file_controls(QPushButton** save, QPushButton** save_as);  // Open (with Recent jobs), Save, Save as
  void build_pending_banner();
  QWidget* build_editors();  // the form and the YAML side by side; returns their splitter
  void build_problem_views();
  void build_launch_controls();  // effective batch, plan, hint, Launch
  void build_launch_target();    // the "Run on" chooser
  void build_layout(QPushButton* save, QPushButton* save_as, QWidget* split);
  void connect_controls(QPushButton* save, QPushButton* save_as);
  void update_state();
  void update_batch();
  void update_plan();
  void update_problems();
  void rebuild_recent_menu();
  QString title() const;

  app::JobDocument* document_;
  app::SettingsStore* settings_;
  QString pristine_template_text_;  // a template as loaded: discarding it loses nothing
  int world_size_ = 1;
  bool launch_blocked_ = false;
  QString launch_blocked_reason_;
  TemplatePicker* picker_ = nullptr;
  JobForm* form_ = nullptr;
  YamlView* yaml_ = nullptr;
  QLabel* file_label_ = nullptr;
  QLabel* pending_banner_ = nullptr;
  QLabel* problems_label_ = nullptr;
  QListWidget* problems_ = nullptr;
  QLabel* batch_label_ = nullptr;
  QLabel* plan_label_ = nullptr;
  app::MachineInfo machine_;
  QLabel* launch_hint_ = nullptr;
  QPushButton* launch_ = nullptr;
  QComboBox* target_ = nullptr;
  QToolButton* open_ = nullptr;
  QMenu* recent_menu_ = nullptr;
};

}  // namespace medsynth::ui
