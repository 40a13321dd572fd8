// The job editor's field list: paths, kinds and defaults walked from the
// schema (visit_job over a default JobSpec); labels, units, help, ranges,
// groups and the choices of string fields from the engine's field rows
// (config/job_fields.hpp), which the job validation checks against too.
#include "app/jobs/job_field_catalog.hpp"

#include <QHash>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "config/job_enums.hpp"
#include "config/job_fields.hpp"
#include "config/job_schema.hpp"
#include "config/job_spec.hpp"
#include "config/task_catalog.hpp"

namespace medsynth::app {

namespace {

// The launcher's options join this group of the field rows.
const QString k_parallel = QStringLiteral("Parallel computing");

QString text(const std::string& s) { return QString::fromStdString(s); }

// Walks the schema: one JobField per leaf, kind and default from the C++ type.
struct CatalogVisitor {
  QStringList prefix;
  QList<JobField> fields;

  template <class F>
  void section(const char* key, F&& body) {
    prefix << QString::fromLatin1(key);
    body();
    prefix.removeLast();
  }

  JobField& add(const char* key, const QString& kind, QVariant default_value) {
    JobField f;
    f.path = (prefix + QStringList{QString::fromLatin1(key)}).join(QLatin1Char('.'));
    f.kind = kind;
    f.default_value = std::move(default_value);
    fields << f;
    return fields.back();
  }

  void field(const char* key, const std::string& v) { add(key, QStringLiteral("string"), QString::fromStdString(v)); }
  void field(const char* key, const int& v) { add(key, QStringLiteral("int"), v); }
  void field(const char* key, const std::int64_t& v) { add(key, QStringLiteral("int"), static_cast<qlonglong>(v)); }
  void field(const char* key, const double& v) { add(key, QStringLiteral("double"), v); }
  void field(const char* key, const bool& v) { add(key, QStringLiteral("bool"), v); }
  void field(const char* key, const DataSource& v) {
    auto& f = add(key, QStringLiteral("choice"), QString::fromLatin1(to_string(v).data(), static_cast<qsizetype>(to_string(v).size())));
    for (const auto& n : data_source_names()) f.choices << QString::fromStdString(n);
  }
  void field(const char* key, const Modality& v) {
    auto& f = add(key, QStringLiteral("choice"), QString::fromLatin1(to_string(v).data(), static_cast<qsizetype>(to_string(v).size())));
    for (const auto& n : modality_names()) f.choices << QString::fromStdString(n);
  }
  template <SpelledEnum E>
  void field(const char* key, const E& v) {
    auto& f = add(key, QStringLiteral("choice"), QString::fromStdString(std::string(to_string(v))));
    for (const auto& n : enum_names<E>()) f.choices << QString::fromStdString(n);
  }
  template <class T, std::size_t N>
  void field(const char* key, const std::array<T, N>& v) {
    QVariantList list;
    for (const auto& x : v) list << QVariant::fromValue(x);
    add(key, list_kind<T>(), list).list_length = static_cast<int>(N);
  }
  void field(const char* key, const std::vector<std::string>& v) {
    QVariantList list;
    for (const auto& x : v) list << QString::fromStdString(x);
    add(key, QStringLiteral("string_list"), list);
  }
  template <class T>
  void field(const char* key, const std::vector<T>& v) {
    QVariantList list;
    for (const auto& x : v) list << QVariant::fromValue(static_cast<T>(x));
    add(key, list_kind<T>(), list);
  }
  template <class T, std::size_t N>
  void field(const char* key, const std::optional<std::array<T, N>>& v) {
    QVariantList list;
    if (v)
      for (const auto& x : *v) list << QVariant::fromValue(x);
    auto& f = add(key, list_kind<T>(), v ? QVariant(list) : QVariant());
    f.list_length = static_cast<int>(N);
    f.nullable = true;
  }

  template <class T>
  static QString list_kind() {
    if constexpr (std::is_same_v<T, bool>) return QStringLiteral("bool_list");
    else if constexpr (std::is_integral_v<T>) return QStringLiteral("int_list");
    else return QStringLiteral("double_list");
  }
};

// A range's open ends, as the form's bounds: the type's own limits.
template <class T>
void set_bounds(JobField& f, const JobFieldRange& range) {
  f.minimum = range.min.value_or(static_cast<double>(std::numeric_limits<T>::lowest()));
  f.maximum = range.max.value_or(static_cast<double>(std::numeric_limits<T>::max()));
  f.minimum_exclusive = range.min_exclusive;
  f.maximum_exclusive = range.max_exclusive;
}

void present(JobField& f, const JobFieldRow& row) {
  f.label = text(row.label);
  if (!row.unit.empty()) f.label += QStringLiteral(" (%1)").arg(text(row.unit));
  f.unit = text(row.unit);
  f.group = text(row.group);
  f.help = text(row.help);
  f.advanced = row.advanced;
  if (!row.range.empty()) {
    const bool whole = f.kind.startsWith(QLatin1String("int"));
    const bool wide = f.default_value.typeId() == QMetaType::LongLong;
    if (wide)
      set_bounds<std::int64_t>(f, row.range);
    else if (whole)
      set_bounds<int>(f, row.range);
    else
      set_bounds<double>(f, row.range);
  }
  if (!row.choices.empty() && f.kind == QLatin1String("string")) {
    f.kind = QStringLiteral("choice");
    for (const auto& c : row.choices) f.choices << text(c);
  }
}

QList<JobField> build_catalog() {
  const JobSpec defaults;
  CatalogVisitor visitor;
  visit_job(defaults, visitor);
  const QSet<QString> paths_as_files{QStringLiteral("data.path"), QStringLiteral("checkpoint.resume"), QStringLiteral("output.runs_dir")};
  for (auto& f : visitor.fields) {
    if (paths_as_files.contains(f.path)) f.kind = QStringLiteral("path");
    if (const JobFieldRow* row = find_job_field_row(f.path.toStdString())) {
      present(f, *row);
    } else {
      // Only until job_fields_test fails: every field has a row.
      f.label = f.path;
      f.group = text(medsynth::job_field_groups().front());
      f.advanced = true;
    }
  }
  return visitor.fields;
}

}  // namespace

QStringList job_field_groups() {
  QStringList groups;
  for (const auto& g : medsynth::job_field_groups()) groups << text(g);
  return groups;
}

QList<JobField> job_field_catalog() {
  static const QList<JobField> catalog = build_catalog();
  return catalog;
}

std::optional<JobField> find_job_field(const QString& path) {
  static const QHash<QString, JobField> by_path = [] {
    QHash<QString, JobField> map;
    for (const auto& f : job_field_catalog()) map.insert(f.path, f);
    return map;
  }();
  const auto it = by_path.constFind(path);
  if (it == by_path.constEnd()) return std::nullopt;
  return *it;
}

QStringList LaunchOptions::validate() const {
  QStringList errors;
  if (nproc_per_node < 1) errors << QStringLiteral("nproc_per_node: must be >= 1 (got %1)").arg(nproc_per_node);
  if (max_restarts < 0) errors << QStringLiteral("max_restarts: must be >= 0 (got %1)").arg(max_restarts);
  return errors;
}

QList<JobField> launch_option_catalog() {
  JobField nproc;
  nproc.path = QStringLiteral("launch.nproc_per_node");
  nproc.label = QStringLiteral("Processes per node");
  nproc.group = k_parallel;
  nproc.kind = QStringLiteral("int");
  nproc.help = QStringLiteral("Training processes on this machine (torchrun --nproc_per_node): one per GPU, or several CPU "
                              "processes with Gloo. Effective batch = batch x accumulation x processes.");
  nproc.minimum = 1;
  nproc.maximum = 1024;
  nproc.default_value = 1;
  JobField restarts;
  restarts.path = QStringLiteral("launch.max_restarts");
  restarts.label = QStringLiteral("Max restarts");
  restarts.group = k_parallel;
  restarts.kind = QStringLiteral("int");
  restarts.help = QStringLiteral("When a process dies, restart all of them from the last checkpoint up to this many times.");
  restarts.minimum = 0;
  restarts.maximum = 100;
  restarts.default_value = 0;
  return {nproc, restarts};
}

bool job_field_applies(const QString& path, const QString& task, const QString& first_stage) {
  return task_reads_field(task.toStdString(), path.toStdString(),
                          first_stage.isEmpty() ? std::string("autoencoder") : first_stage.toStdString());
}

QString job_field_stage(const QString& path, const QString& task) {
  return QString::fromStdString(field_stage(task.toStdString(), path.toStdString()));
}

}  // namespace medsynth::app
