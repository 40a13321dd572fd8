// JobDocument: text + validation through medsynth_config + field edits.
#include "app/jobs/job_document.hpp"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <cmath>

#include "app/jobs/job_field_catalog.hpp"
#include "app/jobs/job_templates.hpp"
#include "app/jobs/job_yaml_tree.hpp"
#include "app/jobs/yaml_text_edit.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

namespace {

constexpr qint64 k_max_job_bytes = 4 * 1024 * 1024;  // a job file is a few kB; refuse to load a volume by mistake

bool is_json_path(const QString& path) { return path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive); }

// A value converted to what the field's kind stores (the form may hand over a
// double for an int spin box, an int for a double).
QVariant coerce(const QVariant& value, const std::optional<JobField>& field) {
  if (!field || !value.isValid() || is_null_value(value)) return value;
  const QString& kind = field->kind;
  auto element = [](const QVariant& v, const QString& element_kind) -> QVariant {
    bool ok = false;
    if (element_kind == QLatin1String("int")) {
      const double d = v.toDouble(&ok);
      if (ok && std::isfinite(d) && d == std::floor(d)) return static_cast<qint64>(d);
    } else if (element_kind == QLatin1String("double")) {
      const double d = v.toDouble(&ok);
      if (ok) return d;
    } else if (element_kind == QLatin1String("bool") && v.typeId() == QMetaType::Bool) {
      return v;
    }
    return v;  // left as given: validation will say what is wrong
  };
  if (kind == QLatin1String("int") || kind == QLatin1String("double") || kind == QLatin1String("bool"))
    return element(value, kind);
  if (kind.endsWith(QLatin1String("_list"))) {
    const QString element_kind = kind.chopped(5);
    QVariantList out;
    for (const auto& v : value.toList()) out << element(v, element_kind);
    return out;
  }
  return value.toString();
}

QString quoted(const QString& s) {
  QString out = QStringLiteral("\"");
  for (const QChar c : s) {
    if (c == QLatin1Char('"') || c == QLatin1Char('\\')) out += QLatin1Char('\\') + QString(c);
    else if (c == QLatin1Char('\n')) out += QStringLiteral("\\n");
    else if (c == QLatin1Char('\t')) out += QStringLiteral("\\t");
    else if (c.unicode() < 0x20) out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
    else out += c;
  }
  return out + QLatin1Char('"');
}

bool plain_string_is_safe(const QString& s) {
  static const QRegularExpression safe(QStringLiteral(R"(^[A-Za-z_/][A-Za-z0-9_./-]*$)"));
  static const QStringList special{QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("null"),
                                   QStringLiteral("yes"),  QStringLiteral("no"),    QStringLiteral("on"),
                                   QStringLiteral("off"),  QStringLiteral("y"),     QStringLiteral("n")};
  return safe.match(s).hasMatch() && !special.contains(s.toLower());
}

}  // namespace

JobDocument::JobDocument(QObject* parent) : QObject(parent) { revalidate(); }

JobDocument::~JobDocument() = default;

QString JobDocument::yaml_scalar_text(const QVariant& value) {
  if (!value.isValid() || is_null_value(value)) return QStringLiteral("null");
  switch (value.typeId()) {
    case QMetaType::Bool: return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::LongLong:
    case QMetaType::ULongLong:
    case QMetaType::Long:
    case QMetaType::Short: return QString::number(value.toLongLong());
    case QMetaType::Double:
    case QMetaType::Float: {
      const double d = value.toDouble();
      if (std::isnan(d)) return QStringLiteral(".nan");
      if (std::isinf(d)) return d > 0 ? QStringLiteral(".inf") : QStringLiteral("-.inf");
      // Shortest round-trip text, written the way every YAML reader takes as a
      // float: "4.0", "0.001", "1.0e-4" (PyYAML reads "1e-04" as a string).
      QString text = QString::number(d, 'g', QLocale::FloatingPointShortest);
      const qsizetype e = text.indexOf(QLatin1Char('e'));
      QString mantissa = e < 0 ? text : text.left(e);
      if (!mantissa.contains(QLatin1Char('.'))) mantissa += QStringLiteral(".0");
      if (e < 0) return mantissa;
      QString exponent = text.mid(e + 1);
      const bool negative = exponent.startsWith(QLatin1Char('-'));
      if (negative || exponent.startsWith(QLatin1Char('+'))) exponent.remove(0, 1);
      while (exponent.size() > 1 && exponent.startsWith(QLatin1Char('0'))) exponent.remove(0, 1);
      return mantissa + QLatin1Char('e') + (negative ? QStringLiteral("-") : QString()) + exponent;
    }
    case QMetaType::QVariantList:
    case QMetaType::QStringList: {
      QStringList items;
      for (const auto& v : value.toList()) items << yaml_scalar_text(v);
      return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
    }
    default: {
      const QString s = value.toString();
      return plain_string_is_safe(s) ? s : quoted(s);
    }
  }
}

bool JobDocument::load(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = QStringLiteral("%1: cannot read: %2").arg(path, file.errorString());
    return false;
  }
  if (file.size() > k_max_job_bytes) {
    if (error) *error = QStringLiteral("%1: not a job file (%2 MB)").arg(path).arg(file.size() / (1024.0 * 1024.0), 0, 'f', 1);
    return false;
  }
  const QByteArray bytes = file.readAll();
  text_ = QString::fromUtf8(bytes);
  template_id_.clear();
  pending_reason_.clear();
  set_path(QFileInfo(path).absoluteFilePath());
  revalidate();
  set_modified(false);
  emit changed();
  return true;
}

bool JobDocument::save(const QString& path, QString* error) {
  const bool want_json = is_json_path(path);
  QString out = text_;
  if (want_json != looks_like_json()) {
    // Another format than the text: convert what the user wrote (not the
    // resolved job, which would pin every default).
    QString parse_error;
    const auto tree = parse_job_tree(text_, &parse_error);
    if (!tree) {
      if (error) *error = QStringLiteral("%1: cannot convert a job with syntax errors: %2").arg(path, parse_error);
      return false;
    }
    out = want_json ? tree_to_json(*tree) : tree_to_yaml(*tree);
  }
  if (!out.isEmpty() && !out.endsWith(QLatin1Char('\n'))) out += QLatin1Char('\n');
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  const QByteArray bytes = out.toUtf8();
  if (file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  if (out != text_) {
    text_ = out;
    tree_parsed_ = false;
    emit changed();
  }
  set_path(QFileInfo(path).absoluteFilePath());
  revalidate();  // the source name (and JSON vs YAML) may have changed
  set_modified(false);
  return true;
}

void JobDocument::load_template(const JobTemplate& job_template) {
  text_ = job_template.yaml;
  template_id_ = job_template.id;
  pending_reason_ = job_template.engine_supported ? QString() : job_template.pending_reason;
  set_path({});
  revalidate();
  set_modified(true);  // not saved anywhere yet
  emit changed();
}

void JobDocument::set_yaml(const QString& text) {
  if (text == text_) return;
  text_ = text;
  revalidate();
  set_modified(true);
  emit changed();
}

bool JobDocument::looks_like_json() const {
  for (const QChar c : text_) {
    if (c.isSpace()) continue;
    return c == QLatin1Char('{');
  }
  return is_json_path(path_);
}

const std::optional<QVariantMap>& JobDocument::tree() const {
  if (!tree_parsed_) {
    tree_ = parse_job_tree(text_);
    tree_parsed_ = true;
  }
  return tree_;
}

QVariant JobDocument::value(const QString& dotted_path) const {
  const auto field = find_job_field(dotted_path);
  if (tree()) {
    bool found = false;
    const QVariant v = tree_value(*tree(), dotted_path.split(QLatin1Char('.')), &found);
    if (found && !is_null_value(v)) return coerce(v, field);
    if (found && field && field->nullable) return {};
  }
  return field ? field->default_value : QVariant();
}

bool JobDocument::set_value(const QString& dotted_path, const QVariant& value) {
  const auto field = find_job_field(dotted_path);
  const QStringList path = dotted_path.split(QLatin1Char('.'));
  const QVariant v = coerce(value, field);
  const std::optional<QString> text = v.isValid() ? std::optional<QString>(yaml_scalar_text(v)) : std::nullopt;

  std::optional<QString> edited;
  if (!looks_like_json()) {
    edited = edit_yaml_value(text_, path, text);
    if (edited) {
      // Trust the text edit only if the value reads back (else edit the tree).
      const auto check = parse_job_tree(*edited);
      bool found = false;
      const QVariant back = check ? tree_value(*check, path, &found) : QVariant();
      const bool matches = text ? found && yaml_scalar_text(back) == *text : !found;
      if (!matches && tree()) edited.reset();
    }
  }
  if (!edited) {
    auto root = tree();
    if (!root) return false;  // syntax errors: nothing safe to edit
    QVariantMap copy = *root;
    set_tree_value(copy, path, v);
    edited = looks_like_json() ? tree_to_json(copy) : tree_to_yaml(copy);
  }
  set_yaml(*edited);
  return true;
}

QList<FieldIssue> JobDocument::issues_for(const QString& dotted_path) const {
  QList<FieldIssue> out;
  for (const auto& issue : issues_)
    if (issue.path == dotted_path) out << issue;
  return out;
}

int JobDocument::effective_batch(int world_size) const {
  bool ok1 = false, ok2 = false;
  const int batch = value(QStringLiteral("training.batch_size")).toInt(&ok1);
  const int accumulation = value(QStringLiteral("training.gradient_accumulation_steps")).toInt(&ok2);
  if (!ok1 || !ok2 || world_size < 1) return 0;
  return batch * accumulation * world_size;
}

bool JobDocument::is_launchable(QString* why) const {
  QString reason;
  if (!pending_reason_.isEmpty())
    reason = pending_reason_;
  else if (!issues_.isEmpty())
    reason = QStringLiteral("the job has %1 problem(s): %2").arg(issues_.size()).arg(issues_.front().to_string());
  if (why) *why = reason;
  return reason.isEmpty();
}

void JobDocument::revalidate() {
  tree_parsed_ = false;
  QList<FieldIssue> issues;
  spec_.reset();
  const std::string source =
      (path_.isEmpty() ? (looks_like_json() ? QStringLiteral("job.json") : QString(QLatin1String(k_job_file)))
                       : QFileInfo(path_).fileName())
          .toStdString();
  try {
    spec_ = load_job_text(text_.toStdString(), source);
  } catch (const ConfigError& e) {
    static const QRegularExpression line_of(QStringLiteral(R"(line (\d+))"));
    for (const auto& fe : e.errors()) {
      FieldIssue issue{QString::fromStdString(fe.path), QString::fromStdString(fe.reason), -1};
      if (issue.path.isEmpty()) {
        const auto m = line_of.match(issue.message);
        if (m.hasMatch()) issue.line = m.captured(1).toInt();
      } else {
        QStringList p = issue.path.split(QLatin1Char('.'));
        while (!p.isEmpty() && issue.line < 0) {  // the key, else its section
          issue.line = yaml_key_line(text_, p);
          p.removeLast();
        }
      }
      issues << issue;
    }
    if (issues.isEmpty()) issues << FieldIssue{{}, QString::fromUtf8(e.what()), -1};
  } catch (const std::exception& e) {
    issues << FieldIssue{{}, QString::fromUtf8(e.what()), -1};
  }
  if (issues != issues_) {
    issues_ = issues;
    emit issues_changed();
  }
}

void JobDocument::set_modified(bool modified) {
  if (modified == modified_) return;
  modified_ = modified;
  emit modified_changed(modified_);
}

void JobDocument::set_path(const QString& path) {
  if (path == path_) return;
  path_ = path;
  emit path_changed();
}

}  // namespace medsynth::app
