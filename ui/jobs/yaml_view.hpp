// The job as YAML text, two-way bound to a JobDocument: typing here updates
// the document (after a short pause, so the form is not rebuilt per key), and
// form edits replace the text here (as one undoable edit). Lines the
// document's issues point at are tinted. Part of JobEditorWidget.
#pragma once

#include <QPlainTextEdit>
#include <QTimer>

#include "app/jobs/job_document.hpp"

namespace medsynth::ui {

struct YamlViewOptions {
  int commit_delay_ms = 300;  // pause after the last key before the document is updated

  QString validate() const;
};

class YamlView : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit YamlView(app::JobDocument* document, QWidget* parent = nullptr, YamlViewOptions options = {});

  // Applies a pending edit now (before saving or launching, and in tests).
  void commit_now();
  bool has_pending_edit() const { return commit_timer_.isActive(); }

 private:
  void on_text_changed();
  void load_from_document();
  void mark_issue_lines();

  app::JobDocument* document_;
  YamlViewOptions options_;
  QTimer commit_timer_;
  bool loading_ = false;  // our own replacement of the text: not a user edit
};

}  // namespace medsynth::ui
