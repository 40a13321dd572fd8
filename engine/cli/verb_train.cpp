// `medsynth-engine train JOB [key=value ...]`: trains the job's task in a new
// run directory (or continues one with --resume) and prints where it is.
#include <CLI/CLI.hpp>

#include <csignal>

#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/engine_tasks.hpp"
#include "cli/job_arguments.hpp"
#include "cli/process_group_from_environment.hpp"
#include "cli/train_arguments.hpp"
#include "cli/signals.hpp"
#include "cli/slurm_requeue.hpp"
#include "cli/sweep.hpp"
#include "cli/verbs.hpp"
#include "config/task_catalog.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "dist/dist_environment.hpp"
#include "dist/process_group.hpp"
#include "contract/run_directory.hpp"
#include "run/run_lock.hpp"
#include "state/device_choice.hpp"
#include "train/trainer.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {

namespace {

// A job SLURM requeued (after our SIGUSR1 checkpoint, or a node failure)
// starts again with the same command line: continue the newest run.
void resume_when_slurm_requeued(TrainArguments& a, const EnvLookup& environment) {
  if (a.resume.empty() && slurm_restart_count(environment) > 0) {
    std::cerr << "medsynth-engine: SLURM_RESTART_COUNT=" << slurm_restart_count(environment)
              << ": resuming the newest run of this job\n";
    a.resume = "auto";
  }
}

// Rank 0 decided (created, or found the run to resume); the others follow.
void follow_rank0s_run(DistContext& dist, const DistEnvironment& env, TrainerOptions& options) {
  const std::string root = dist.share_from_rank0("run_dir", options.run.root);
  const std::string from = dist.share_from_rank0("resume_from", options.resume_from);
  if (env.rank != 0) {
    options.run = open_run_directory(root);
    options.resume_from = from;
  }
}

// The options from the command line: initial weights, output, progress and
// test hooks; and the stop signals' handlers, installed.
void set_options_of_arguments(TrainerOptions& options, const TrainArguments& a, const DistEnvironment& env) {
  // Resuming (a restart, or checkpoint.resume) continues from the checkpoint's own weights.
  if (options.resume_from.empty()) options.init_weights = a.init_weights;
  options.json_stdout = a.json;
  options.quiet = a.quiet;
  options.progress_bar = !a.no_progress && env.rank == 0;
  // Lines stay with --no-progress: the SLURM and SSH launchers pass it, and a
  // batch log is where they are needed most.
  options.progress_every_s = a.progress_every_s;
  options.test_hooks = training_test_hooks(a);
  install_stop_handlers();
  options.stop_signal = &stop_flag();
}

// Rank 0's part of a stop by SIGUSR1: the SLURM job requeued (or why not),
// said on stderr.
void requeue_when_slurm_time_is_near(const EnvLookup& environment) {
  if (stop_signal_number() == SIGUSR1) {
    if (const auto job_id = slurm_job_id(environment)) {
      const std::string problem = requeue_slurm_job(*job_id);
      std::cerr << "medsynth-engine: "
                << (problem.empty() ? "SIGUSR1: checkpoint written; requeued SLURM job " + *job_id : problem) << "\n";
    } else {
      std::cerr << "medsynth-engine: SIGUSR1 outside SLURM (no SLURM_JOB_ID): checkpoint written, not requeued\n";
    }
  }
}

void print_train_result(const TrainerOptions& options, const TrainResult& result) {
  std::cout << "run directory: " << options.run.root << "\n";
  for (const auto& [name, value] : result.final_metrics) std::cout << name << " = " << value << "\n";
  if (!result.best_checkpoint.empty()) std::cout << "best checkpoint: " << result.best_checkpoint << "\n";
  std::cout << "last checkpoint: " << result.last_checkpoint << "\n";
}

int run(const TrainArguments& given) {
  TrainArguments a = given;
  const EnvLookup environment = process_environment();
  resume_when_slurm_requeued(a, environment);
  JobSpec job = load_train_job(a);

  TrainerOptions options;
  // torchrun / srun / our launcher describe the process group in the environment.
  const DistEnvironment env = read_dist_environment(environment);
  std::unique_ptr<DistContext> dist = process_group_from_environment(job);
  if (dist) {
    options.dist = dist.get();
    options.rank = env.rank;
    options.world_size = env.world_size;
  }
  // Rank 0 alone writes the run's events and checkpoints, so it alone holds
  // the run's lock, for as long as this process trains (run/run_lock.hpp).
  std::optional<RunLock> lock;
  if (env.rank == 0) {
    ResolvedRun r = resolve_run(a, job);
    lock.emplace(RunLock::acquire(r.run.root, "train"));
    if (!lock->note().empty()) std::cerr << "medsynth-engine: " << lock->note() << "\n";
    options.run = r.run;
    options.resume_from = r.resume_from;
  }
  if (dist) follow_rank0s_run(*dist, env, options);
  set_options_of_arguments(options, a, env);

  if (env.rank == 0) std::cerr << "medsynth-engine: run directory: " << options.run.root << "\n";
  TrainResult result;
  try {
    result = engine_tasks().train(job, options);
  } catch (const Interrupted&) {
    // The checkpoint is written. Under SLURM, SIGUSR1 means "the time limit
    // is near": rank 0 puts the job back in the queue, once.
    if (env.rank == 0) requeue_when_slurm_time_is_near(environment);
    // Every rank leaves together: under `srun --kill-on-bad-exit` the first
    // rank to exit gets the others killed, which must not hit rank 0 while
    // it writes the checkpoint or before it has requeued the job.
    if (dist) dist->barrier("stopped");
    throw;
  }
  if (dist) dist->shutdown();  // NCCL's communicators destroyed in order, not aborted
  if (!a.json && env.rank == 0) print_train_result(options, result);
  return 0;
}

}  // namespace

Action add_train_verb(CLI::App& app) {
  auto args = std::make_shared<TrainArguments>();
  auto multirun = std::make_shared<bool>(false);
  std::string tasks;
  for (const std::string& name : task_names()) tasks += (tasks.empty() ? "" : ", ") + name;
  auto* cmd = app.add_subcommand("train", "Train a job (task: " + tasks + ") in a new run directory, or resume one");
  add_train_options(*cmd, *args);
  cmd->add_flag("-m,--multirun", *multirun,
                "Hydra's multirun: key=a,b overrides sweep, one run per combination (as `medsynth-engine sweep`)");
  return [args, multirun] {
    if (!*multirun) return run(*args);
    if (!args->resume.empty() || args->json || !args->init_weights.empty())
      throw UsageError("-m: a sweep starts new runs; --resume, --json and --init-weights do not apply to it");
    SweepArguments sweep;
    sweep.job_file = args->job_file;
    sweep.overrides = args->overrides;
    sweep.runs_dir = args->runs_dir;
    sweep.data = args->data;
    return run_sweep(sweep);
  };
}

}  // namespace medsynth::cli
