// yaml-cpp <-> QVariant for job documents.
#include "app/jobs/job_yaml_tree.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>
#include <limits>
#include <yaml-cpp/yaml.h>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_field_catalog.hpp"

namespace medsynth::app {

namespace {

QVariant scalar_to_variant(const YAML::Node& node) {
  const QString text = QString::fromStdString(node.Scalar());
  if (node.Tag() == "!") return text;  // quoted: always text
  static const QRegularExpression integer(QStringLiteral(R"(^[-+]?[0-9]+$)"));
  static const QRegularExpression floating(QStringLiteral(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)"));
  if (text.isEmpty() || text == QLatin1String("~") || text.compare(QLatin1String("null"), Qt::CaseInsensitive) == 0)
    return null_value();
  if (text == QLatin1String("true") || text == QLatin1String("True") || text == QLatin1String("TRUE")) return true;
  if (text == QLatin1String("false") || text == QLatin1String("False") || text == QLatin1String("FALSE")) return false;
  if (integer.match(text).hasMatch()) {
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    if (ok) return v;
  }
  if (floating.match(text).hasMatch()) return text.toDouble();
  const QString lower = text.toLower();
  if (lower == QLatin1String(".inf") || lower == QLatin1String("+.inf")) return std::numeric_limits<double>::infinity();
  if (lower == QLatin1String("-.inf")) return -std::numeric_limits<double>::infinity();
  if (lower == QLatin1String(".nan")) return std::numeric_limits<double>::quiet_NaN();
  return text;
}

// yaml-cpp keeps an alias as a shared node, so a 1 KB "billion laughs" file
// is small as a tree and only explodes when it is copied out. A job has a few
// hundred values and is four levels deep: the copy stops far beyond that.
constexpr int k_max_values = 100000;
constexpr int k_max_depth = 64;

struct TooBig {
  QString reason;
};

QVariant node_to_variant(const YAML::Node& node, int depth, int& values) {
  if (++values > k_max_values)
    throw TooBig{QStringLiteral("the document expands to more than %1 values (aliases that repeat aliases?); a job has a few hundred")
                     .arg(k_max_values)};
  if (depth > k_max_depth) throw TooBig{QStringLiteral("the document is nested deeper than %1 levels; a job has at most 4").arg(k_max_depth)};
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      QVariantMap map;
      for (const auto& kv : node) map.insert(QString::fromStdString(kv.first.Scalar()), node_to_variant(kv.second, depth + 1, values));
      return map;
    }
    case YAML::NodeType::Sequence: {
      QVariantList list;
      for (const auto& item : node) list.append(node_to_variant(item, depth + 1, values));
      return list;
    }
    case YAML::NodeType::Scalar: return scalar_to_variant(node);
    default: return null_value();
  }
}

// Section order and key order as the schema walks them.
QStringList schema_order(const QStringList& prefix) {
  QStringList keys;
  for (const auto& f : job_field_catalog()) {
    const QStringList p = f.path.split(QLatin1Char('.'));
    if (p.size() <= prefix.size() || p.mid(0, prefix.size()) != prefix) continue;
    if (!keys.contains(p[prefix.size()])) keys << p[prefix.size()];
  }
  return keys;
}

void emit_map(const QVariantMap& map, const QStringList& prefix, int indent, QString& out) {
  QStringList keys = schema_order(prefix);
  keys.erase(std::remove_if(keys.begin(), keys.end(), [&](const QString& k) { return !map.contains(k); }), keys.end());
  QStringList rest = map.keys();
  rest.erase(std::remove_if(rest.begin(), rest.end(), [&](const QString& k) { return keys.contains(k); }), rest.end());
  keys += rest;
  for (const auto& key : keys) {
    const QVariant v = map.value(key);
    out += QString(indent, QLatin1Char(' ')) + key + QLatin1Char(':');
    if (v.typeId() == QMetaType::QVariantMap) {
      out += QLatin1Char('\n');
      emit_map(v.toMap(), prefix + QStringList{key}, indent + 2, out);
    } else {
      out += QLatin1Char(' ') + JobDocument::yaml_scalar_text(v) + QLatin1Char('\n');
    }
  }
}

}  // namespace

QVariant null_value() { return QVariant::fromValue(nullptr); }

bool is_null_value(const QVariant& v) { return v.typeId() == QMetaType::Nullptr; }

std::optional<QVariantMap> parse_job_tree(const QString& text, QString* error) {
  try {
    const YAML::Node root = YAML::Load(text.toStdString());
    if (root.IsNull()) return QVariantMap{};  // an empty document: all defaults
    if (!root.IsMap()) {
      if (error) *error = QStringLiteral("the document is not a mapping of sections");
      return std::nullopt;
    }
    int values = 0;
    return node_to_variant(root, 0, values).toMap();
  } catch (const TooBig& e) {
    if (error) *error = e.reason;
    return std::nullopt;
  } catch (const YAML::Exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
}

QVariant tree_value(const QVariantMap& root, const QStringList& path, bool* found) {
  *found = false;
  QVariant node = root;
  for (const auto& key : path) {
    if (node.typeId() != QMetaType::QVariantMap) return {};
    const QVariantMap map = node.toMap();
    auto it = map.constFind(key);
    if (it == map.constEnd()) return {};
    node = *it;
  }
  *found = true;
  return node;
}

void set_tree_value(QVariantMap& root, const QStringList& path, const QVariant& value) {
  if (path.isEmpty()) return;
  if (path.size() == 1) {
    if (value.isValid())
      root.insert(path.front(), value);
    else
      root.remove(path.front());
    return;
  }
  QVariantMap child = root.value(path.front()).typeId() == QMetaType::QVariantMap ? root.value(path.front()).toMap() : QVariantMap{};
  set_tree_value(child, path.mid(1), value);
  root.insert(path.front(), child);
}

QString tree_to_yaml(const QVariantMap& root) {
  QString out;
  emit_map(root, {}, 0, out);
  return out;
}

QString tree_to_json(const QVariantMap& root) {
  return QString::fromUtf8(QJsonDocument(QJsonObject::fromVariantMap(root)).toJson(QJsonDocument::Indented));
}

}  // namespace medsynth::app
