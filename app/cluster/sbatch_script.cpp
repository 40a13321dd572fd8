// sbatch_script(): the #SBATCH header and the srun line.
#include "app/cluster/sbatch_script.hpp"

#include "app/cluster/command_shell.hpp"

namespace medsynth::app {

namespace {
// The job name comes from a file name: anything but a plain name character
// (a newline above all, which would add a line to the script) becomes '_'.
QString plain_job_name(QString name) {
  for (QChar& c : name)
    if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('_') && c != QLatin1Char('-') && c != QLatin1Char('.')) c = QLatin1Char('_');
  return name;
}
}  // namespace

QString sbatch_script(const ClusterSpec& cluster, const LaunchRequest& request, const SbatchJob& job) {
  const SlurmSettings& s = cluster.slurm;
  QStringList lines{QStringLiteral("#!/bin/sh"),
                    QStringLiteral("# medsynth launch %1 (written by the console; docs/cluster.md)").arg(job.launch_id),
                    QStringLiteral("#SBATCH --job-name=%1").arg(plain_job_name(job.job_name)),
                    QStringLiteral("#SBATCH --nodes=%1").arg(s.nodes),
                    QStringLiteral("#SBATCH --ntasks-per-node=%1").arg(s.tasks_per_node)};
  if (s.gpus_per_node > 0) lines << QStringLiteral("#SBATCH --gpus-per-node=%1").arg(s.gpus_per_node);
  if (s.cpus_per_task > 0) lines << QStringLiteral("#SBATCH --cpus-per-task=%1").arg(s.cpus_per_task);
  if (!s.partition.isEmpty()) lines << QStringLiteral("#SBATCH --partition=%1").arg(s.partition);
  if (!s.account.isEmpty()) lines << QStringLiteral("#SBATCH --account=%1").arg(s.account);
  lines << QStringLiteral("#SBATCH --time=%1").arg(s.time_limit);
  // To every task (not B: the batch shell): the engine checkpoints on SIGUSR1
  // and rank 0 runs `scontrol requeue` (RELIABILITY.md 12).
  if (s.signal_seconds > 0) lines << QStringLiteral("#SBATCH --signal=USR1@%1").arg(s.signal_seconds);
  lines << (s.requeue ? QStringLiteral("#SBATCH --requeue") : QStringLiteral("#SBATCH --no-requeue"));
  lines << QStringLiteral("#SBATCH --open-mode=append")
        << QStringLiteral("#SBATCH --output=%1/slurm-%j.out").arg(job.launch_dir)
        << QStringLiteral("#SBATCH --chdir=%1").arg(job.launch_dir);
  for (const QString& d : s.extra_directives) lines << QStringLiteral("#SBATCH ") + d;
  lines << QString();
  // Without a fixed port the engine derives one from the job id.
  if (cluster.master_port > 0) lines << QStringLiteral("export MASTER_PORT=%1").arg(cluster.master_port);
  lines << QStringLiteral("echo \"medsynth: job $SLURM_JOB_ID restart ${SLURM_RESTART_COUNT:-0} on $SLURM_JOB_NODELIST\"");
  QStringList command{QStringLiteral("srun"), QStringLiteral("--kill-on-bad-exit=1"), shell_quote(s.engine), QStringLiteral("train"),
                      shell_quote(job.launch_dir + QStringLiteral("/job.yaml"))};
  for (const QString& o : request.overrides) command << shell_quote(o);
  command << QStringLiteral("--no-progress") << QStringLiteral("--runs-dir")
          << shell_quote(job.launch_dir + QStringLiteral("/runs"));  // one run per launch: the launcher finds it
  if (!request.resume_run_dir.isEmpty()) command << QStringLiteral("--resume") << shell_quote(request.resume_run_dir);
  if (!request.data_path.isEmpty()) command << QStringLiteral("--data") << shell_quote(request.data_path);
  // exec: srun gets the batch shell's signals (scancel, the time limit).
  lines << QStringLiteral("exec ") + command.join(QLatin1Char(' ')) << QString();
  return lines.join(QLatin1Char('\n'));
}

}  // namespace medsynth::app
