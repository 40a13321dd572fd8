// `medsynth-engine train JOB [key=value ...]`: trains the job's task in a new
// run directory (or continues one with --resume) and prints where it is.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/job_arguments.hpp"
#include "cli/signals.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "run/run_directory.hpp"
#include "train/trainer.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

struct TrainArguments {
  std::string job_file;
  std::vector<std::string> overrides;
  std::string data;
  std::string resume;
  std::string runs_dir;
  bool json = false;
  bool quiet = false;
  bool no_progress = false;
  std::string inject_nan;
};

// The newest run of this job name under runs_dir that holds a last checkpoint.
std::string newest_resumable_run(const std::string& runs_dir, const std::string& name) {
  std::string best;
  fs::file_time_type best_time{};
  std::error_code ec;
  if (!fs::is_directory(runs_dir, ec)) return {};
  for (const auto& entry : fs::directory_iterator(runs_dir, ec)) {
    const std::string dir = entry.path().filename().string();
    if (dir.rfind(name + "-", 0) != 0) continue;
    const fs::path last = entry.path() / "checkpoints" / "last.safetensors";
    if (!fs::exists(last, ec)) continue;
    auto t = fs::last_write_time(last, ec);
    if (best.empty() || t > best_time) {
      best = entry.path().string();
      best_time = t;
    }
  }
  return best;
}

int run(const TrainArguments& a) {
  JobSpec job = load_job(a.job_file, a.data, a.overrides);
  if (!a.runs_dir.empty()) job.output.runs_dir = a.runs_dir;

  TrainerOptions options;
  std::string resume = a.resume.empty() ? job.checkpoint.resume : a.resume;
  if (resume == "auto") {
    resume = newest_resumable_run(job.output.runs_dir, job.name);
    if (resume.empty()) std::cerr << "medsynth-engine: checkpoint.resume=auto: no earlier run of '" << job.name << "'; starting fresh\n";
  }
  if (!resume.empty() && fs::is_directory(resume)) {
    options.run = open_run_directory(resume);
    options.resume_from = options.run.checkpoints_dir() + "/last.safetensors";
    if (!fs::exists(options.resume_from)) throw UsageError(resume + ": run directory has no checkpoints/last.safetensors to resume from");
  } else {
    if (!resume.empty() && !fs::exists(resume)) throw UsageError("resume: no such checkpoint or run directory: " + resume);
    options.resume_from = resume;
    options.run = create_run_directory(job.output.runs_dir, job.name);
    write_text_file_atomic(options.run.job_file(), job_to_yaml(job));
  }
  options.json_stdout = a.json;
  options.quiet = a.quiet;
  options.progress_bar = !a.no_progress;
  std::stringstream steps(a.inject_nan);
  for (std::string s; std::getline(steps, s, ',');)
    if (!s.empty()) options.inject_nan_at_steps.insert(std::stoi(s));
  install_stop_handlers();
  options.stop_signal = &stop_flag();

  std::cerr << "medsynth-engine: run directory: " << options.run.root << "\n";
  TrainResult result = run_training(job, options);
  if (!a.json) {
    std::cout << "run directory: " << options.run.root << "\n";
    for (const auto& [name, value] : result.final_metrics) std::cout << name << " = " << value << "\n";
    if (!result.best_checkpoint.empty()) std::cout << "best checkpoint: " << result.best_checkpoint << "\n";
    std::cout << "last checkpoint: " << result.last_checkpoint << "\n";
  }
  return 0;
}

}  // namespace

Action add_train_verb(CLI::App& app) {
  auto args = std::make_shared<TrainArguments>();
  auto* cmd = app.add_subcommand("train", "Train a job (autoencoder) in a new run directory, or resume one");
  cmd->add_option("job", args->job_file, "Job file (.yaml or .json)")->required()->check(CLI::ExistingFile);
  cmd->add_option("overrides", args->overrides, "Hydra-style overrides: training.lr=3e-4 data.patch_size=[32,32,32]");
  cmd->add_option("--data", args->data, "Train on real volumes: a folder of .nii/.nii.gz (or DICOM series) or a CSV manifest");
  cmd->add_option("--resume", args->resume, "Continue a run directory (from its last checkpoint) or start from a checkpoint file; 'auto' = newest run of this job");
  cmd->add_option("--runs-dir", args->runs_dir, "Where run directories are created (default: output.runs_dir, 'runs')");
  cmd->add_flag("--json", args->json, "Write the event stream (JSON lines) to stdout");
  cmd->add_flag("--quiet", args->quiet, "Only warnings and errors on stderr");
  cmd->add_flag("--no-progress", args->no_progress, "No progress bar on stderr");
  cmd->add_option("--inject-nan-at", args->inject_nan, "Testing: make the loss NaN at these optimizer steps, e.g. 5,6,7")->group("");
  return [args] { return run(*args); };
}

}  // namespace medsynth::cli
