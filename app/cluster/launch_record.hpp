// What the console must remember to come back to a cluster run after it was
// closed or lost its links: the cluster (no secrets: ClusterSpec has none),
// the launch id, where each node's directory is, the SLURM job id. Saved as
// JSON in the console's data directory when a run starts (atomic write);
// `medsynth run --attach FILE` and the GUI's run history read it back.
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <optional>

#include "app/cluster/cluster_spec.hpp"

namespace medsynth::app {

struct LaunchRecord {
  QString launch_id;
  ClusterSpec cluster;
  QString job_name;
  QStringList node_dirs;   // SSH: one per host; SLURM: the launch directory
  QString slurm_job_id;
  QDateTime started;

  QString file_name() const { return launch_id + QStringLiteral(".json"); }
};

// "20261122-231500-3f2a": sortable, unique enough for one user's console.
QString new_launch_id();
// $MEDSYNTH_LAUNCH_RECORDS, else <app data>/launches.
QString default_launch_records_dir();
// Writes DIR/<id>.json atomically; false with *error naming the file.
bool save_launch_record(const LaunchRecord& record, const QString& dir, QString* error);
std::optional<LaunchRecord> load_launch_record(const QString& path, QString* error);

}  // namespace medsynth::app
