#include "cli/train_arguments.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/engine_tasks.hpp"
#include "cli/job_arguments.hpp"
#include "config/job_loader.hpp"
#include "config/network_size.hpp"
#include "config/task_catalog.hpp"
#include "core/error.hpp"
#include "contract/run_directory.hpp"
#include "volume/atomic_file.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

// The newest run of this job name under runs_dir that holds a last checkpoint.
std::string newest_resumable_run(const std::string& runs_dir, const std::string& name) {
  std::string best;
  fs::file_time_type best_time{};
  std::error_code ec;
  if (!fs::is_directory(runs_dir, ec)) return {};
  for (const auto& entry : fs::directory_iterator(runs_dir, ec)) {
    const std::string dir = entry.path().filename().string();
    if (dir.rfind(name + "-", 0) != 0) continue;
    const fs::path last = RunDirectory{entry.path().string()}.last_checkpoint();
    if (!fs::exists(last, ec)) continue;
    auto t = fs::last_write_time(last, ec);
    if (best.empty() || t > best_time) {
      best = entry.path().string();
      best_time = t;
    }
  }
  return best;
}

}  // namespace

void add_train_options(CLI::App& cmd, TrainArguments& a) {
  cmd.add_option(
         "job", a.job_file,
         "Job file (.yaml or .json), or an ldm run directory (import-maisi's) whose networks a new run starts from")
      ->required()
      ->check(CLI::ExistingPath);
  cmd.add_option("overrides", a.overrides, "Hydra-style overrides: training.lr=3e-4 data.patch_size=[32,32,32]");
  cmd.add_option(
      "--data", a.data,
      "Train on real volumes: a folder of .nii/.nii.gz/.nrrd/.nhdr/.mha/.mhd files (or DICOM series, or case "
      "folders), a CSV manifest or a datalist JSON");
  cmd.add_option("--resume", a.resume, "Continue a run directory (from its last checkpoint) or start from a checkpoint file; 'auto' = newest run of this job");
  cmd.add_option("--init-weights", a.init_weights,
                 "Start a new run (step 0, fresh optimizer) from the weights in this file: weights only, another "
                 "run's checkpoint, or a PyTorch state dict (.pt/.pth, e.g. MedicalNet's ResNets: the tensors the "
                 "network shares load, the rest is reported)")
      ->check(CLI::ExistingFile);
  cmd.add_option("--runs-dir", a.runs_dir, "Where run directories are created (default: output.runs_dir, 'runs')");
  cmd.add_flag("--json", a.json, "Write the event stream (JSON lines) to stdout");
  cmd.add_flag("--quiet", a.quiet, "Only warnings and errors on stderr");
  cmd.add_flag("--no-progress", a.no_progress,
               "No progress bar on stderr (the progress lines of --progress-every stay)");
  cmd.add_option("--progress-every", a.progress_every_s,
                 "Where stderr is no terminal (a pipe, a log, SLURM): a progress line at most every SECONDS, with "
                 "loss, rate, elapsed time and ETA (default 30; 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--run-dir", a.run_dir, "Launcher: use this existing run directory")->group("");
  cmd.add_option("--test-kill-self", a.test_kill, "Testing: RANK:STEP - that rank SIGKILLs itself after that step")->group("");
  cmd.add_option("--inject-nan-at", a.inject_nan, "Testing: make the loss NaN at these optimizer steps, e.g. 5,6,7")->group("");
}

JobSpec load_train_job(const TrainArguments& a) {
  // A run directory: its networks as the start of a new run (import-maisi's: fine-tuning).
  JobSpec job = load_job_or_run(a.job_file, a.data, a.overrides);
  if (!a.runs_dir.empty()) job.output.runs_dir = a.runs_dir;
  refuse_job_networks_larger_than_memory(job, a.job_file);
  refuse_job_activations_larger_than_memory(job, a.job_file, /*generating=*/false);
  // A pipeline that ends by generating: its images must fit too, before hours of training.
  if (const TaskTraits* t = find_task(job.task); t && t->kind == TaskKind::pipeline && t->generates_volumes)
    refuse_job_activations_larger_than_memory(job, a.job_file, /*generating=*/true);
  return job;
}

ResolvedRun resolve_run(const TrainArguments& a, const JobSpec& job) {
  ResolvedRun r;
  // A launcher's restart adds --resume to a worker that was given --init-weights: resuming wins there.
  if (!a.resume.empty() && !a.init_weights.empty() && a.run_dir.empty())
    throw UsageError("--resume and --init-weights exclude each other: --resume continues a run, --init-weights starts a new one");
  std::string resume = a.resume.empty() ? job.checkpoint.resume : a.resume;
  if (resume == "auto") {
    resume = newest_resumable_run(job.output.runs_dir, job.name);
    if (resume.empty()) std::cerr << "medsynth-engine: checkpoint.resume=auto: no earlier run of '" << job.name << "'; starting fresh\n";
  }
  if (!resume.empty() && fs::is_directory(resume)) {
    r.run = open_run_directory(resume);
    // A pipeline resumes stage by stage from its sub-runs (diffusion/ldm_pipeline.hpp).
    if (engine_tasks().is_pipeline(job.task)) return r;
    r.resume_from = r.run.last_checkpoint();
    if (!fs::exists(r.resume_from))
      throw UsageError(resume + ": run directory has no checkpoints/" + k_last_checkpoint_file + " to resume from");
    return r;
  }
  if (!resume.empty() && !fs::exists(resume)) throw UsageError("resume: no such checkpoint or run directory: " + resume);
  // A pipeline's stages resume from their own sub-runs; a checkpoint file
  // given here was silently ignored (a new run from scratch, issue 54).
  if (!resume.empty() && engine_tasks().is_pipeline(job.task))
    throw UsageError("--resume " + resume + ": task " + job.task +
                     " is a pipeline, which resumes a run directory stage by stage (--resume RUN_DIR); to start "
                     "from this file's weights, name it as ldm.diffusion_init=" +
                     resume + " (or --init-weights)");
  r.resume_from = resume;
  if (!a.run_dir.empty()) {
    r.run = open_run_directory(a.run_dir);
  } else {
    r.run = create_run_directory(job.output.runs_dir, job.name);
    write_string_atomically(r.run.job_file(), job_to_yaml(job));
  }
  return r;
}

TrainingTestHooks training_test_hooks(const TrainArguments& a) {
  TrainingTestHooks hooks;
  std::stringstream steps(a.inject_nan);
  for (std::string s; std::getline(steps, s, ',');)
    if (!s.empty()) hooks.inject_nan_at_steps.insert(std::stoi(s));
  if (const auto colon = a.test_kill.find(':'); colon != std::string::npos) {
    hooks.kill_rank = std::stoi(a.test_kill.substr(0, colon));
    hooks.kill_step = std::stoi(a.test_kill.substr(colon + 1));
  }
  return hooks;
}

std::vector<std::string> worker_train_argv(const TrainArguments& a) {
  std::vector<std::string> argv{"train", a.job_file};
  argv.insert(argv.end(), a.overrides.begin(), a.overrides.end());
  if (!a.data.empty()) argv.insert(argv.end(), {"--data", a.data});
  if (!a.runs_dir.empty()) argv.insert(argv.end(), {"--runs-dir", a.runs_dir});
  if (!a.init_weights.empty()) argv.insert(argv.end(), {"--init-weights", a.init_weights});
  if (a.json) argv.push_back("--json");
  if (a.quiet) argv.push_back("--quiet");
  if (a.no_progress) argv.push_back("--no-progress");
  if (a.progress_every_s != TrainArguments{}.progress_every_s)
    argv.insert(argv.end(), {"--progress-every", std::to_string(a.progress_every_s)});
  if (!a.inject_nan.empty()) argv.insert(argv.end(), {"--inject-nan-at", a.inject_nan});
  if (!a.test_kill.empty()) argv.insert(argv.end(), {"--test-kill-self", a.test_kill});
  return argv;
}

}  // namespace medsynth::cli
