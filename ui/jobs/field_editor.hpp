// One field of the job form: the right input for its kind (spin box, check
// box, combo box, number or list line edit, path with a chooser button) and,
// under it, the inline validation message for that field path. Built by
// JobForm from app::job_field_catalog(); emits edited(path, value) when the
// user changes it; JobForm writes the document's values and issues back.
//
// Numbers are typed as text (1e-4, 1.0e-7 stay readable), so a value the
// engine would refuse (lr = -1) reaches the document and its message shows
// here, like `medsynth-engine validate` would print it.
#pragma once

#include <QVariant>
#include <QWidget>

#include "app/jobs/job_field_catalog.hpp"

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;
QT_END_NAMESPACE

namespace medsynth::ui {

class FieldEditor : public QWidget {
  Q_OBJECT

 public:
  explicit FieldEditor(const app::JobField& field, QWidget* parent = nullptr);

  const app::JobField& field() const { return field_; }
  QString path() const { return field_.path; }

  // Shows `value` without emitting edited(). Leaves the input alone while the
  // user is typing something that already means the same value.
  void set_value(const QVariant& value);
  // The input's current value; invalid with *error set when the text does not parse.
  QVariant value(QString* error = nullptr) const;

  // The document's messages for this path; "" hides the label.
  void set_issues(const QStringList& messages);
  QString issue_text() const;
  bool has_issue() const;

  // Another field makes this one unused (app::unused_field_reason): the input
  // is disabled and the reason shows under it; "" enables it again.
  void set_unused_reason(const QString& reason);
  QString unused_reason() const;

  // The input widget (QSpinBox, QCheckBox, QComboBox or QLineEdit), for tests.
  QWidget* input() const { return input_; }

  // "32, 32, 32" for lists, the number's shortest text, "" for null.
  static QString to_text(const QVariant& value);
  // Parses `text` as `kind` ("int", "double", "int_list", ...). Invalid + *error on failure.
  static QVariant parse_text(const QString& text, const app::JobField& field, QString* error);

 signals:
  void edited(const QString& path, const QVariant& value);

 private:
  void emit_from_text();
  void choose_path(bool directory);
  void show_local_error(const QString& message);

  app::JobField field_;
  QWidget* input_ = nullptr;
  QSpinBox* spin_ = nullptr;
  QCheckBox* check_ = nullptr;
  QComboBox* combo_ = nullptr;
  QLineEdit* line_ = nullptr;
  QLabel* issue_ = nullptr;
  QLabel* unused_note_ = nullptr;
  QString local_error_;      // the text does not parse (shown before document issues)
  QStringList document_issues_;
  bool updating_ = false;    // set_value() in progress: swallow the input's signals
};

}  // namespace medsynth::ui
