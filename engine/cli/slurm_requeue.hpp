// What a SLURM job does around its time limit (RELIABILITY.md 12-13). The
// sbatch script asks for `--signal=USR1@90 --requeue`: 90 s before the limit
// every task gets SIGUSR1, the trainer saves its checkpoint and stops, and
// rank 0 asks SLURM to put the job back in the queue. The requeued job starts
// with SLURM_RESTART_COUNT > 0 and resumes from that checkpoint by itself.
#pragma once

#include <optional>
#include <string>

#include "dist/dist_environment.hpp"

namespace medsynth::cli {

// SLURM_JOB_ID when it is a plain job id (digits only; it is passed to
// scontrol). Empty outside SLURM; UsageError when it is set but malformed.
std::optional<std::string> slurm_job_id(const EnvLookup& env);

// SLURM_RESTART_COUNT (0 when unset); UsageError when it is not a number.
int slurm_restart_count(const EnvLookup& env);

// `scontrol requeue JOB_ID`, run without a shell. Returns "" on success, else
// why it failed (the caller logs it: the checkpoint is written either way).
std::string requeue_slurm_job(const std::string& job_id);

}  // namespace medsynth::cli
