// `medsynth-engine validate JOB|RUN [key=value ...] [--data DIR] [--plan]`:
// lists every problem of a job file with its field path (exit 2), or prints
// the resolved job (exit 0). A run directory is checked as `train RUN` would
// train it. --data also runs the data checks training runs before step 0
// (train/training_data_check.hpp: a case's missing contrast, a bad header,
// too few batches), exit 3 or 2 as train's; --plan adds the planner's
// estimate of a training step's memory and work (config/job_plan.hpp)
// against this machine's memory.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cli/engine_tasks.hpp"
#include "cli/job_arguments.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "config/job_plan.hpp"
#include "config/network_size.hpp"
#include "config/task_catalog.hpp"
#include "diffusion/ldm_pipeline.hpp"
#include "train/task_registry.hpp"
#include "train/training_data_check.hpp"

namespace medsynth::cli {

namespace {

void print_plan(const JobPlan& plan, bool amp, std::ostream& out) {
  out << "plan (an estimate; docs/performance.md, \"The planner\")" << (plan.stage.empty() ? "" : ": " + plan.stage)
      << "\n";
  for (const auto& n : plan.networks)
    out << "  " << n.name << ": " << std::fixed << std::setprecision(1) << n.parameters / 1e6
        << " M trained parameters, " << gibibytes(n.activation_bytes) << " of activations per micro-batch, "
        << std::setprecision(0) << n.macs / 1e9 << " GMAC forward\n";
  out << "  peak per process: about " << gibibytes(plan.peak_bytes()) << " (weights, gradients and Adam "
      << gibibytes(plan.state_bytes) << ", activations " << gibibytes(plan.activation_bytes) << ", runtime "
      << gibibytes(plan.framework_bytes) << ")\n";
  out << "  work per optimizer step: " << std::setprecision(0) << 3.0 * plan.step_macs / 1e9
      << " GMAC (forward and backward)\n";
  const int cores = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  out << "  time per optimizer step: about " << std::setprecision(2) << cpu_seconds(plan.step_macs, cores, amp)
      << " s on this machine's " << cores << " CPU cores"
      << (amp ? " (with native bf16; about twice that without)" : "") << ", " << h100_seconds(plan.step_macs)
      << " s on an H100\n";
  if (plan.run_macs > 0)
    out << "  the whole run's training steps: about " << std::setprecision(1)
        << cpu_seconds(plan.run_macs, cores, amp) / 3600.0 << " h here, " << h100_seconds(plan.run_macs) / 3600.0
        << " h on one H100\n";
  else
    out << "  the whole run: bounded by epochs, whose steps depend on the data (set training.max_steps to plan it)\n";
  for (const auto& note : plan.notes) out << "  not counted: " << note << "\n";
  const double memory = static_cast<double>(physical_memory_bytes());
  if (memory > 0)
    out << "  this machine: " << gibibytes(memory) << " of memory: "
        << (plan.peak_bytes() <= memory ? "fits" : "does NOT fit (use a smaller patch or batch, or a GPU node)")
        << "\n";
}

// The data checks of the stage that first reads the job's data: the task
// itself, or an ldm pipeline's autoencoder stage; the other stages read
// what earlier ones wrote (latents), which a job file alone does not have.
void check_data(const JobSpec& job, const std::string& source, std::ostream& out) {
  const TaskRegistry& tasks = engine_tasks();
  JobSpec first = job;
  if (tasks.is_pipeline(job.task)) {
    const TaskTraits* traits = find_task(job.task);
    if (!traits || !trains_first_stage(*traits, job.ldm.autoencoder_checkpoint)) {
      out << "data: task " << job.task << " reads its data when its encode stage starts (not checked here)\n";
      return;
    }
    first = autoencoder_stage_job(job);
  }
  refuse_job_networks_larger_than_memory(first, source);  // as train does, before the task is built
  out << "data: " << check_training_data(first, tasks).summary << " (one process)\n";
}

}  // namespace

Action add_validate_verb(CLI::App& app) {
  struct Args {
    std::string job_file, data;
    std::vector<std::string> overrides;
    bool json = false, print = false, plan = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("validate", "Check a job file: every error with its field path; exit 0 when valid");
  cmd->add_option("job", args->job_file,
                  "Job file (.yaml or .json), or a run directory (checked and planned as `train RUN` trains it)")
      ->required();
  cmd->add_option("overrides", args->overrides, "Overrides key=value applied before validation");
  cmd->add_option("--data", args->data,
                  "Validate with this data folder, CSV manifest or datalist, and run the data checks training runs "
                  "before step 0");
  cmd->add_flag("--print", args->print, "Print the resolved job (all defaults filled in)");
  cmd->add_flag("--json", args->json, "With --print: as JSON");
  cmd->add_flag("--plan", args->plan,
                "Estimate a training step's peak memory per process and its work, and compare with this machine");
  return [args] {
    JobSpec job = load_job_or_run(args->job_file, args->data, args->overrides);
    if (!args->data.empty()) check_data(job, args->job_file, std::cout);
    if (args->print) std::cout << (args->json ? job_to_json(job) : job_to_yaml(job)) << "\n";
    std::cerr << args->job_file << ": valid\n";
    if (args->plan) print_plan(plan_job(job), job.training.amp, std::cout);
    return 0;
  };
}

}  // namespace medsynth::cli
