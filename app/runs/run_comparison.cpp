#include "app/runs/run_comparison.hpp"

#include <QDir>
#include <QFile>
#include <QVariantList>
#include <QVariantMap>

#include "app/jobs/job_yaml_tree.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

namespace {

constexpr const char* k_stages_latest_first[] = {"controlnet", "diffusion", "autoencoder"};

QString scalar_text(const QVariant& v) {
  if (is_null_value(v) || !v.isValid()) return QStringLiteral("null");
  if (v.typeId() == QMetaType::Bool) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
  if (v.typeId() == QMetaType::Double) return QString::number(v.toDouble(), 'g', 10);
  if (v.typeId() == QMetaType::QVariantList) {
    QStringList parts;
    for (const QVariant& e : v.toList()) parts << scalar_text(e);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  return v.toString();
}

// Every leaf of the tree as dotted path -> text, in the tree's key order.
void flatten(const QVariantMap& map, const QString& prefix, QList<QPair<QString, QString>>& out) {
  for (auto it = map.cbegin(); it != map.cend(); ++it) {
    const QString path = prefix.isEmpty() ? it.key() : prefix + QLatin1Char('.') + it.key();
    if (it.value().typeId() == QMetaType::QVariantMap)
      flatten(it.value().toMap(), path, out);
    else
      out.append({path, scalar_text(it.value())});
  }
}

}  // namespace

std::optional<double> headline_metric(const QMap<QString, double>& final_metrics, const QString& name) {
  if (const auto it = final_metrics.constFind(name); it != final_metrics.constEnd()) return *it;
  for (const char* stage : k_stages_latest_first) {
    const auto it = final_metrics.constFind(QString::fromLatin1(stage) + QLatin1Char('/') + name);
    if (it != final_metrics.constEnd()) return *it;
  }
  return std::nullopt;
}

QList<JobDifference> job_differences(const QStringList& run_dirs) {
  QList<QPair<QString, QString>> order;  // every path of any run, first seen first (a QMap's keys: sorted)
  QList<QMap<QString, QString>> values;
  QStringList unreadable;
  for (const QString& dir : run_dirs) {
    QFile file(QDir(dir).filePath(QLatin1String(k_job_file)));
    QString error;
    std::optional<QVariantMap> tree;
    if (file.open(QIODevice::ReadOnly))
      tree = parse_job_tree(QString::fromUtf8(file.readAll()), &error);
    else
      error = file.errorString();
    QMap<QString, QString> run;
    if (tree) {
      QList<QPair<QString, QString>> leaves;
      flatten(*tree, QString(), leaves);
      for (const auto& [path, text] : leaves) {
        run.insert(path, text);
        bool known = false;
        for (const auto& p : order) known = known || p.first == path;
        if (!known) order.append({path, QString()});
      }
    }
    unreadable << (tree ? QString() : QStringLiteral("(unreadable: %1)").arg(error));
    values << run;
  }
  QList<JobDifference> out;
  for (const auto& [path, unused] : order) {
    JobDifference d{path, {}};
    for (int i = 0; i < values.size(); ++i)
      d.values << (!unreadable[i].isEmpty() ? unreadable[i] : values[i].value(path, QStringLiteral("(absent)")));
    if (d.values.count(d.values.front()) != d.values.size()) out << d;
  }
  return out;
}

QStringList distinct_run_labels(const QStringList& names) {
  if (names.size() < 2) return names;
  qsizetype shared = names.front().size();
  for (const QString& name : names) {
    qsizetype i = 0;
    while (i < shared && i < name.size() && name[i] == names.front()[i]) ++i;
    shared = i;
  }
  const auto separator = [](QChar c) { return c == '-' || c == '_' || c == '.'; };
  while (shared > 0 && !separator(names.front()[shared - 1])) --shared;  // cut at a word's end
  qsizetype first_word = 0;
  while (first_word < shared && !separator(names.front()[first_word])) ++first_word;
  // They differ right after the first word, or too little is shared to be
  // worth a "…" (eight characters: a date).
  if (shared - first_word < 8) return names;
  QStringList labels;
  for (const QString& name : names) {
    if (shared >= name.size()) return names;  // a name that is all shared part
    labels << name.left(first_word) + QStringLiteral(" \u2026") + name.mid(shared);
  }
  return labels;
}

}  // namespace medsynth::app
