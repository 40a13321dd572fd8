#include "ui/jobs/field_editor.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <climits>
#include <cmath>

namespace medsynth::ui {

namespace {

bool is_list_kind(const QString& kind) { return kind.endsWith(QLatin1String("_list")); }

QString number_text(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return QString::number(v, 'f', 1);  // 4.0 stays a double
  return QString::number(v, 'g', 12);
}

QVariant parse_scalar(const QString& text, const QString& kind, QString* error) {
  const QString t = text.trimmed();
  bool ok = false;
  if (kind.startsWith(QLatin1String("int"))) {
    const qlonglong v = t.toLongLong(&ok);
    if (!ok) {
      *error = QObject::tr("expected a whole number (got \"%1\")").arg(t);
      return {};
    }
    if (v >= INT_MIN && v <= INT_MAX) return QVariant(static_cast<int>(v));
    return QVariant(v);
  }
  if (kind.startsWith(QLatin1String("double"))) {
    const double v = t.toDouble(&ok);
    if (!ok) {
      *error = QObject::tr("expected a number (got \"%1\")").arg(t);
      return {};
    }
    return QVariant(v);
  }
  if (kind.startsWith(QLatin1String("bool"))) {
    if (t.compare(QLatin1String("true"), Qt::CaseInsensitive) == 0) return QVariant(true);
    if (t.compare(QLatin1String("false"), Qt::CaseInsensitive) == 0) return QVariant(false);
    *error = QObject::tr("expected true or false (got \"%1\")").arg(t);
    return {};
  }
  return QVariant(text);
}

}  // namespace

FieldEditor::FieldEditor(const app::JobField& field, QWidget* parent) : QWidget(parent), field_(field) {
  setObjectName(field.path);
  auto* row = new QHBoxLayout();
  row->setContentsMargins(0, 0, 0, 0);
  const QString& kind = field_.kind;
  const bool wide_int = field_.maximum > INT_MAX || field_.minimum < INT_MIN;
  if (kind == QLatin1String("int") && !wide_int) {
    spin_ = new QSpinBox(this);
    // The engine's range rules speak through the inline message: the box does
    // not clamp, so a file's out-of-range value shows as written.
    spin_->setRange(INT_MIN / 2, INT_MAX);
    spin_->setAccelerated(true);
    connect(spin_, &QSpinBox::valueChanged, this, [this](int v) {
      if (!updating_) emit edited(field_.path, QVariant(v));
    });
    input_ = spin_;
  } else if (kind == QLatin1String("bool")) {
    check_ = new QCheckBox(this);
    connect(check_, &QCheckBox::toggled, this, [this](bool on) {
      if (!updating_) emit edited(field_.path, QVariant(on));
    });
    input_ = check_;
  } else if (kind == QLatin1String("choice")) {
    combo_ = new QComboBox(this);
    combo_->addItems(field_.choices);
    connect(combo_, &QComboBox::currentTextChanged, this, [this](const QString& text) {
      if (!updating_) emit edited(field_.path, QVariant(text));
    });
    input_ = combo_;
  } else {
    line_ = new QLineEdit(this);
    if (is_list_kind(kind)) {
      line_->setPlaceholderText(field_.nullable ? tr("empty: not set") : tr("comma-separated values"));
    }
    connect(line_, &QLineEdit::textEdited, this, &FieldEditor::emit_from_text);
    input_ = line_;
  }
  input_->setToolTip(field_.help.isEmpty() ? field_.path : field_.help + "\n(" + field_.path + ")");
  row->addWidget(input_, 1);
  if (kind == QLatin1String("path")) {
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Choose a folder or a file"));
    browse->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(browse);
    menu->addAction(tr("Choose folder…"), this, [this] { choose_path(true); });
    menu->addAction(tr("Choose file…"), this, [this] { choose_path(false); });
    browse->setMenu(menu);
    row->addWidget(browse);
  }

  issue_ = new QLabel(this);
  issue_->setObjectName("issue");
  issue_->setWordWrap(true);
  issue_->setStyleSheet(QStringLiteral("color: #d62728;"));
  issue_->hide();

  unused_note_ = new QLabel(this);
  unused_note_->setObjectName("unused_note");
  unused_note_->setWordWrap(true);
  unused_note_->setEnabled(false);  // the palette's disabled text: a remark, not an error
  unused_note_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(1);
  layout->addLayout(row);
  layout->addWidget(issue_);
  layout->addWidget(unused_note_);
}

void FieldEditor::set_unused_reason(const QString& reason) {
  unused_note_->setText(reason);
  unused_note_->setVisible(!reason.isEmpty());
  input_->setEnabled(reason.isEmpty());
}

QString FieldEditor::unused_reason() const { return unused_note_->text(); }

QString FieldEditor::to_text(const QVariant& value) {
  if (!value.isValid() || value.isNull()) return {};
  if (value.typeId() == QMetaType::QVariantList || value.typeId() == QMetaType::QStringList) {
    QStringList parts;
    for (const QVariant& v : value.toList()) parts << to_text(v);
    return parts.join(QStringLiteral(", "));
  }
  if (value.typeId() == QMetaType::Double || value.typeId() == QMetaType::Float) return number_text(value.toDouble());
  if (value.typeId() == QMetaType::Bool) return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  return value.toString();
}

QVariant FieldEditor::parse_text(const QString& text, const app::JobField& field, QString* error) {
  QString scratch;
  if (!error) error = &scratch;
  error->clear();
  if (!is_list_kind(field.kind)) {
    if (field.kind == QLatin1String("int") || field.kind == QLatin1String("double") ||
        field.kind == QLatin1String("bool")) {
      if (text.trimmed().isEmpty() && field.nullable) return {};
      return parse_scalar(text, field.kind, error);
    }
    return QVariant(text);
  }
  QString body = text.trimmed();
  if (body.startsWith('[') && body.endsWith(']')) body = body.mid(1, body.size() - 2);  // YAML flow style pasted
  if (body.trimmed().isEmpty()) {
    if (field.nullable) return {};
    *error = QObject::tr("expected values separated by commas");
    return {};
  }
  QVariantList values;
  const QStringList parts = body.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
  for (const QString& part : parts) {
    const QVariant v = parse_scalar(part, field.kind, error);
    if (!v.isValid()) return {};
    values << v;
  }
  if (field.list_length > 0 && values.size() != field.list_length) {
    *error = QObject::tr("expected %1 values (got %2)").arg(field.list_length).arg(values.size());
    return {};
  }
  return values;
}

void FieldEditor::set_value(const QVariant& value) {
  updating_ = true;
  if (spin_) {
    if (spin_->value() != value.toInt() || spin_->text().isEmpty()) spin_->setValue(value.toInt());
  } else if (check_) {
    check_->setChecked(value.toBool());
  } else if (combo_) {
    const QString text = value.toString();
    if (combo_->findText(text) < 0) combo_->addItem(text);  // show what the file says, even if refused
    combo_->setCurrentText(text);
  } else if (line_) {
    // Do not rewrite what the user is typing when it already means this value
    // ("1e-4" vs 0.0001, "32,32, 32" vs [32, 32, 32]).
    QString error;
    const QVariant current = parse_text(line_->text(), field_, &error);
    const bool same = error.isEmpty() && to_text(current) == to_text(value);
    if (!same) {
      const int cursor = line_->cursorPosition();
      line_->setText(to_text(value));
      if (line_->hasFocus()) line_->setCursorPosition(std::min(cursor, static_cast<int>(line_->text().size())));
      local_error_.clear();
    }
  }
  updating_ = false;
  set_issues(document_issues_);
}

QVariant FieldEditor::value(QString* error) const {
  if (spin_) return QVariant(spin_->value());
  if (check_) return QVariant(check_->isChecked());
  if (combo_) return QVariant(combo_->currentText());
  return parse_text(line_->text(), field_, error);
}

void FieldEditor::emit_from_text() {
  if (updating_) return;
  QString error;
  const QVariant v = parse_text(line_->text(), field_, &error);
  if (!error.isEmpty()) {
    show_local_error(error);
    return;
  }
  show_local_error({});
  emit edited(field_.path, v);
}

void FieldEditor::show_local_error(const QString& message) {
  local_error_ = message;
  set_issues(document_issues_);
}

void FieldEditor::set_issues(const QStringList& messages) {
  document_issues_ = messages;
  QStringList shown;
  if (!local_error_.isEmpty()) shown << local_error_;
  shown += messages;
  issue_->setText(shown.join('\n'));
  issue_->setVisible(!shown.isEmpty());
  input_->setProperty("invalid", !shown.isEmpty());
}

QString FieldEditor::issue_text() const { return issue_->text(); }
bool FieldEditor::has_issue() const { return !issue_->text().isEmpty(); }

void FieldEditor::choose_path(bool directory) {
  const QString start = line_->text();
  const QString chosen = directory ? QFileDialog::getExistingDirectory(this, field_.label, start)
                                   : QFileDialog::getOpenFileName(this, field_.label, start);
  if (chosen.isEmpty()) return;
  line_->setText(chosen);
  emit_from_text();
}

}  // namespace medsynth::ui
