// LaunchRecord as JSON (QSaveFile: a crash mid-write keeps the old file).
#include "app/cluster/launch_record.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace medsynth::app {

QString new_launch_id() {
  return QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-")) +
         QString::number(QRandomGenerator::global()->bounded(0x10000), 16).rightJustified(4, QLatin1Char('0'));
}

QString default_launch_records_dir() {
  const QString env = qEnvironmentVariable("MEDSYNTH_LAUNCH_RECORDS");
  if (!env.isEmpty()) return env;
  QString base = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  if (base.isEmpty()) base = QDir::homePath() + QStringLiteral("/.local/share/medsynth");
  return base + QStringLiteral("/launches");
}

bool save_launch_record(const LaunchRecord& r, const QString& dir, QString* error) {
  QJsonObject o;
  o[QStringLiteral("launch_id")] = r.launch_id;
  o[QStringLiteral("cluster")] = cluster_to_yaml(r.cluster);
  o[QStringLiteral("job_name")] = r.job_name;
  o[QStringLiteral("node_dirs")] = QJsonArray::fromStringList(r.node_dirs);
  o[QStringLiteral("slurm_job_id")] = r.slurm_job_id;
  o[QStringLiteral("started")] = r.started.toString(Qt::ISODateWithMs);
  if (!QDir().mkpath(dir)) {
    if (error) *error = QStringLiteral("%1: cannot create the directory").arg(dir);
    return false;
  }
  QSaveFile file(QDir(dir).filePath(r.file_name()));
  if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(o).toJson()) < 0 || !file.commit()) {
    if (error) *error = QStringLiteral("%1: cannot write the launch record (%2)").arg(file.fileName(), file.errorString());
    return false;
  }
  return true;
}

std::optional<LaunchRecord> load_launch_record(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = QStringLiteral("%1: cannot read the launch record (%2)").arg(path, file.errorString());
    return std::nullopt;
  }
  QJsonParseError pe;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &pe);
  if (!doc.isObject()) {
    if (error) *error = QStringLiteral("%1: not a launch record (%2)").arg(path, pe.errorString());
    return std::nullopt;
  }
  const QJsonObject o = doc.object();
  LaunchRecord r;
  r.launch_id = o.value(QStringLiteral("launch_id")).toString();
  r.job_name = o.value(QStringLiteral("job_name")).toString();
  for (const auto& v : o.value(QStringLiteral("node_dirs")).toArray()) r.node_dirs << v.toString();
  r.slurm_job_id = o.value(QStringLiteral("slurm_job_id")).toString();
  // The id goes into squeue/scontrol/scancel command lines on reattach: a
  // record is a file anyone with write access to it could have edited.
  static const QRegularExpression job_id(QStringLiteral("^\\d+$"));
  if (!r.slurm_job_id.isEmpty() && !job_id.match(r.slurm_job_id).hasMatch()) {
    if (error) *error = QStringLiteral("%1: slurm_job_id: '%2' is not a SLURM job id (digits only)").arg(path, r.slurm_job_id);
    return std::nullopt;
  }
  r.started = QDateTime::fromString(o.value(QStringLiteral("started")).toString(), Qt::ISODateWithMs);
  QString cluster_error;
  auto cluster = parse_cluster_yaml(o.value(QStringLiteral("cluster")).toString(), path + QStringLiteral(" (cluster)"), &cluster_error);
  if (!cluster || r.launch_id.isEmpty() || r.node_dirs.isEmpty()) {
    if (error) *error = cluster ? QStringLiteral("%1: launch_id or node_dirs missing").arg(path) : cluster_error;
    return std::nullopt;
  }
  r.cluster = *cluster;
  return r;
}

}  // namespace medsynth::app
