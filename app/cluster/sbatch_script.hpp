// The sbatch script of a SLURM launch: one task per GPU (`srun` starts the
// engine's `train` on every task; the engine reads SLURM_PROCID/NTASKS/
// NODELIST), `--signal=USR1@N` so the engine checkpoints and requeues itself
// before the time limit, `--requeue`, output appended across requeues, and
// runs in the launch directory's runs/ so a requeued job finds its run
// (the engine resumes when SLURM_RESTART_COUNT > 0).
#pragma once

#include <QString>
#include <QStringList>

#include "app/cluster/cluster_spec.hpp"
#include "app/launch/launch_request.hpp"

namespace medsynth::app {

struct SbatchJob {
  QString launch_dir;   // absolute, on the submitting host: job.yaml, job.sbatch, slurm-<id>.out, runs/
  QString job_name;     // medsynth-<job>
  QString launch_id;
};

QString sbatch_script(const ClusterSpec& cluster, const LaunchRequest& request, const SbatchJob& job);

}  // namespace medsynth::app
