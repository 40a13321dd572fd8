// LaunchRequest::validate: every problem at once, each naming its field.
#include "app/launch/launch_request.hpp"

#include <QDir>
#include <QFileInfo>

#include "contract/run_directory.hpp"

namespace medsynth::app {

QStringList LaunchRequest::validate() const {
  QStringList errors;
  if (!pending_reason.isEmpty()) errors << QStringLiteral("job: cannot be launched: %1").arg(pending_reason);
  if (!generate_run_dir.isEmpty()) {
    if (paths_on_nodes)
      errors << QStringLiteral("generate_run_dir: generating from the console runs on this machine only");
    else if (!QFileInfo(QDir(generate_run_dir).filePath(QLatin1String(k_job_file))).isFile())
      errors << QStringLiteral("generate_run_dir: %1: not a run directory (no job.yaml)").arg(generate_run_dir);
  } else if (job_file.isEmpty()) {
    errors << QStringLiteral("job_file: no job file (save the job first)");
  } else if (QFileInfo(job_file).isDir()) {
    // `train RUN_DIR`: a new run from an ldm run's networks (a MAISI import's).
    if (!QFileInfo(QDir(job_file).filePath(QLatin1String(k_job_file))).isFile())
      errors << QStringLiteral("job_file: %1: a folder but not a run directory (no job.yaml)").arg(job_file);
  } else if (!QFileInfo(job_file).isFile()) {
    errors << QStringLiteral("job_file: %1: no such file").arg(job_file);
  }
  if (nproc_per_node < 1) errors << QStringLiteral("nproc_per_node: must be >= 1 (got %1)").arg(nproc_per_node);
  if (max_restarts < 0) errors << QStringLiteral("max_restarts: must be >= 0 (got %1)").arg(max_restarts);
  for (const auto& o : overrides) {
    const auto eq = o.indexOf(QLatin1Char('='));
    if (eq <= 0) errors << QStringLiteral("overrides: '%1': expected key=value, e.g. training.lr=3e-4").arg(o);
  }
  const bool resume_path = !resume_run_dir.isEmpty() && resume_run_dir != QLatin1String("auto");
  if (paths_on_nodes) {
    // A relative path would be resolved in each node's launch directory.
    if (resume_path && !resume_run_dir.startsWith(QLatin1Char('/')))
      errors << QStringLiteral("resume_run_dir: %1: must be an absolute path on the nodes").arg(resume_run_dir);
    if (!data_path.isEmpty() && !data_path.startsWith(QLatin1Char('/')))
      errors << QStringLiteral("data_path: %1: must be an absolute path on the nodes").arg(data_path);
    return errors;
  }
  if (resume_path && !QFileInfo::exists(resume_run_dir))
    errors << QStringLiteral("resume_run_dir: %1: no such run directory or checkpoint").arg(resume_run_dir);
  if (!data_path.isEmpty() && !QFileInfo::exists(data_path))
    errors << QStringLiteral("data_path: %1: no such folder or manifest").arg(data_path);
  return errors;
}

}  // namespace medsynth::app
