// The one training loop every task runs in (ARCHITECTURE.md "train/"): AdamW
// per optimizer group, warm-up + cosine LR, gradient accumulation, clipping,
// AMP (bf16 autocast on CPU; fp16 + dynamic loss scaling on CUDA), the NaN
// guard (skip a non-finite step; after K in a row roll back to the last good
// checkpoint with the LR scaled down), validation every N steps, atomic
// checkpoints (last + best k) with full resume, and the event stream.
// Distributed (options.dist): parameters broadcast from rank 0, gradients
// averaged in overlapped buckets (dist/gradient_sync.hpp), data sharded per
// rank, validation split across ranks and reduced, loss/stop/NaN decisions
// agreed by one small all-reduce per step. Rank 0 alone writes events and
// checkpoints; every rank logs to logs/rank{R}.log.
// Called by the CLI's train verb, the ldm pipeline and tests. The loop itself
// is split by job: training_setup (building the run), training_step (one
// optimizer step and the NaN guard), training_report (metrics, progress, the
// run's end), training_checkpoints, training_validation; trainer.cpp holds
// the loop that calls them.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "config/job_spec.hpp"
#include "events/event_writer.hpp"
#include "contract/run_directory.hpp"
#include "train/training_test_hooks.hpp"

namespace medsynth {

class DistContext;
class Task;
class TaskRegistry;

// Builds the Task a job trains (a registry entry, or a pipeline's stage task).
using TaskFactory = std::function<std::unique_ptr<Task>(const JobSpec&)>;

struct TrainerOptions {
  RunDirectory run;                   // already created (create_run_directory / open_run_directory)
  DistContext* dist = nullptr;        // the process group of a distributed run (rank, world, device); null: one process
  int rank = 0;                       // from `dist` when it is set
  int world_size = 1;
  bool json_stdout = false;           // echo events to stdout (--json)
  bool progress_bar = true;           // a bar on stderr when it is a terminal
  bool quiet = false;                 // only warnings and errors on stderr
  // Where no bar is drawn (a pipe, a log file, SLURM): a progress line on
  // stderr at most this often, and at the last step; 0: none (issue 53 item 3:
  // 97 s of silence in the quick start's piped log, hours under SLURM).
  double progress_every_s = 30.0;
  std::string resume_from;            // checkpoint to resume from ("" = fresh start)
  // A fresh run (step 0, new optimizer) that starts from these weights: a
  // weights-only file or another run's checkpoint of the same model.
  std::string init_weights;
  // A pipeline's stage: its events also go to the pipeline's stream (which is
  // then the only one echoed to stdout; see EventForwarding).
  EventForwarding forward_events;
  const std::atomic<int>* stop_signal = nullptr;  // non-zero: save a checkpoint and stop (SIGINT/SIGTERM)
  TrainingTestHooks test_hooks;       // tests only: NaN losses, a stop or a SIGKILL at given steps; empty in production
  // Where the trainer finds job.task's Task (task_registry.hpp); null: the
  // trainer's own tasks (training_tasks.hpp).
  const TaskRegistry* tasks = nullptr;
  // A pipeline's stage that trains a task of the pipeline's own (the ldm
  // pipeline's diffusion UNet) passes it here; it wins over `tasks`.
  TaskFactory make_task;
};

struct TrainResult {
  std::map<std::string, double> final_metrics;
  int steps = 0;
  int rollbacks = 0;
  int skipped_steps = 0;
  std::string last_checkpoint;
  std::string best_checkpoint;
  double final_train_loss = 0.0;      // mean loss of the last logged window
};

// Throws medsynth::Error subclasses (DataError for bad volumes, UsageError for
// a foreign checkpoint, Interrupted after a stop signal once the checkpoint is
// written, RuntimeError otherwise). Emits run_failed before rethrowing.
TrainResult run_training(const JobSpec& job, const TrainerOptions& options);

}  // namespace medsynth
