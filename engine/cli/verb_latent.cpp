// The latent-diffusion verbs outside a pipeline run:
//   `medsynth-engine encode JOB --autoencoder CKPT --output DIR [key=value ...]`
//     stores the latents of the job's images (MAISI's create_embeddings step);
//   `medsynth-engine generate RUN_DIR [--num-images N] [--base-seed S]
//     [--output-dir D] [key=value ...]` samples new volumes from a finished
//     (or interrupted) task: ldm run with its diffusion and autoencoder
//     checkpoints, or translates the cases of a task: translation run. Both
//     run distributed when started by launch/torchrun/srun.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>

#include "cli/engine_tasks.hpp"
#include "cli/generate_arguments.hpp"
#include "cli/generate_events.hpp"
#include "cli/process_group_from_environment.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "config/network_size.hpp"
#include "core/error.hpp"
#include "diffusion/encode_stage.hpp"
#include "data/volume_dataset.hpp"
#include "diffusion/generate_stage.hpp"
#include "diffusion/latent_files.hpp"
#include "eval/organ_quality_check.hpp"
#include "diffusion/translation_task.hpp"
#include "dist/dist_environment.hpp"
#include "events/progress_lines.hpp"
#include "contract/run_directory.hpp"
#include "run/run_lock.hpp"
#include "state/device_choice.hpp"
#include "state/memory_high_water.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

std::string require_file(const std::string& path, const std::string& what) {
  if (!fs::exists(path)) throw UsageError(what + ": no such file: " + path);
  return path;
}

// `generate` of a task: translation run: every case of the job's data (or
// --data) gets its target contrast, written as RUN/output/<case>/<stem>.nii.gz.
int translate_run_cases(const RunDirectory& run, JobSpec job, const std::string& data, const std::string& output_dir,
                        bool overwrite) {
  if (!data.empty()) apply_data_override(job.data, data);
  auto dist = process_group_from_environment(job);
  std::unique_ptr<Task> task = engine_tasks().make_task(job);
  auto* translation = dynamic_cast<TranslationTask*>(task.get());
  if (!translation) throw RuntimeError("task " + job.task + " reads cases but is no TranslationTask");
  const std::string checkpoint = require_file(run.last_checkpoint(), "checkpoint of the run");
  restore_weights(task->modules(), read_tensor_file(checkpoint), checkpoint, /*prefer_ema=*/true);
  task->to(dist ? dist->device() : training_device(job.training.device, 0));
  TranslateOptions o;
  o.output_dir = output_dir.empty() ? run.output_dir() : output_dir;
  o.overwrite = overwrite;
  o.rank = dist ? dist->rank() : 0;
  o.world_size = dist ? dist->world_size() : 1;
  o.on_written = [](const std::string& path) { std::cerr << "generate: translated " << path << std::endl; };
  for (const auto& path : translate_cases(job, *translation, o)) std::cout << path << "\n";
  return 0;
}

// A task: ldm run samples new volumes: the options that translate given
// cases or overwrite images are refused, as is a task that samples none.
void refuse_what_sampling_cannot_do(const GenerateArguments& args, const RunDirectory& run, const JobSpec& job) {
  if (args.inpaint.empty() && (!args.region.empty() || !args.region_classes.empty()))
    throw UsageError("--region, --region-classes: they say which part of --inpaint CT to regenerate; give --inpaint");
  if (args.overwrite)
    throw UsageError(
        "--overwrite: a task: ldm run keeps the images it finds and writes the missing ones; "
        "remove those to sample again");
  refuse_job_activations_larger_than_memory(job, run.job_file(), /*generating=*/true);
  if (!args.data.empty()) throw UsageError("--data: only a task: translation run translates given cases");
  if (!engine_tasks().traits(job.task).generates_volumes)
    throw UsageError(run.job_file() + ": task is '" + job.task +
                     "', generate needs a task: " + task_names_with(&TaskTraits::generates_volumes, " or ") + " run");
}

// The run's checkpoints (each required to exist), scale factor and output
// folder, with --label's ControlNet and --quality-check's statistics.
GenerateOptions generate_options_for(const GenerateArguments& args, const RunDirectory& run, const JobSpec& job) {
  GenerateOptions o;
  // A controlnet run steers the UNet it was trained against (ldm.diffusion_init).
  const std::string own_unet = run.stage(k_diffusion_stage).last_checkpoint();
  o.unet_checkpoint =
      require_file(fs::exists(own_unet) || job.ldm.diffusion_init.empty() ? own_unet : job.ldm.diffusion_init,
                   "diffusion stage checkpoint");
  o.autoencoder_checkpoint =
      require_file(job.ldm.autoencoder_checkpoint.empty() ? run.stage(k_autoencoder_stage).last_checkpoint()
                                                          : job.ldm.autoencoder_checkpoint,
                   "autoencoder checkpoint");
  o.scale_factor_file = scale_factor_file_of(run, job.ldm.embedding_dir);
  o.output_dir = args.output_dir.empty() ? run.output_dir() : args.output_dir;
  if (!args.label.empty()) {
    o.label = args.label;
    o.controlnet_checkpoint =
        require_file(run.stage(k_controlnet_stage).last_checkpoint(),
                     "ControlNet checkpoint (import-maisi of a folder with one, or train RUN task=controlnet)");
    o.controlnet_network_config =
        require_file(run.stage(k_controlnet_stage).network_config_file(), "ControlNet network config");
  }
  o.inpaint = InpaintOptions{args.inpaint, args.region, args.region_classes, args.inpaint_margin};
  if (o.inpaint.enabled()) o.on_note = [](const std::string& line) { std::cerr << "generate: " << line << std::endl; };
  if (!args.quality_check.empty()) {
    o.quality_statistics = std::make_shared<OrganStatistics>(read_organ_statistics(args.quality_check));
    o.quality_max_tries = args.quality_tries;
    o.on_note = [](const std::string& line) { std::cerr << "generate: " << line << std::endl; };
  }
  return o;
}

// This process's images of the run sampled (those already there kept), with
// the run's events and a line per image; their paths on stdout unless --json.
int sample_run_images(const GenerateArguments& args, const RunDirectory& run, const JobSpec& job, GenerateOptions& o,
                      DistContext* dist) {
  const int rank = dist ? dist->rank() : 0, world = dist ? dist->world_size() : 1;
  const auto device = dist ? dist->device() : training_device(job.training.device, 0);
  const auto planned = planned_images(job, o.output_dir, world, !o.label.empty());
  std::int64_t kept = 0;
  for (const auto& p : planned)
    kept += p.rank == rank && fs::exists(p.path) ? 1 : 0;  // this process's, kept as they are
  GenerateEvents events(args.json, run, o.output_dir, job, device.str(), rank, world,
                        static_cast<std::int64_t>(planned.size()), kept);
  events.known_already(planned);
  if (dist) dist->barrier("generate: existing images noted");  // before any rank writes one
  // A line per image on stderr as it is written: at MAISI size an image
  // takes minutes, and a silent command looks like a hung one.
  std::int64_t written = kept;
  const std::int64_t mine =
      std::count_if(planned.begin(), planned.end(), [rank](const GeneratedImage& p) { return p.rank == rank; });
  o.on_image_written = [&events, &written, mine](const GeneratedImage& image) {
    events.image_written(image);
    std::cerr << "generate: image " << ++written << "/" << mine << " of this process written: " << image.path
              << " (seed " << image.seed << ", " << std::fixed << std::setprecision(1) << image.seconds << " s)"
              << std::endl;
  };
  // And within an image: sampling steps, then decoder tiles.
  ProgressLines progress({.prefix = "generate"});
  o.on_progress = [&progress](std::string_view phase, std::int64_t done, std::int64_t total) {
    progress.report(phase, done, total);
  };
  std::vector<GeneratedImage> images;
  try {
    images = generate_images(job, o);
  } catch (const std::exception& e) {
    events.failed(e);
    throw;
  }
  const MemoryHighWater memory = memory_high_water(device);
  events.finished(planned, event_fields(memory));
  std::cerr << describe(memory) << "\n";
  if (!args.json)
    for (const auto& image : images) std::cout << image.path << "\n";
  return 0;
}

int run_generate(const GenerateArguments& args) {
  const RunDirectory run = open_run_directory(args.run_dir);
  // Rank 0 writes the run's events (and output/): it holds the run's lock
  // while it generates, as train does (run/run_lock.hpp).
  std::optional<RunLock> lock;
  if (read_dist_environment(process_environment()).rank == 0) {
    lock.emplace(RunLock::acquire(run.root, "generate"));
    if (!lock->note().empty()) std::cerr << "generate: " << lock->note() << "\n";
  }
  JobSpec job = load_job_file_with_overrides(run.job_file(), args.overrides);
  refuse_job_networks_larger_than_memory(job, run.job_file());
  if (engine_tasks().traits(job.task).reads_cases) {
    if (!args.inpaint.empty())
      throw UsageError("--inpaint: a task: " + job.task +
                       " run translates whole cases; a region is regenerated by a "
                       "task: ldm run (or one made by import-maisi)");
    refuse_job_activations_larger_than_memory(job, run.job_file(),
                                              /*generating=*/false);  // whole cases, not an output size
    return translate_run_cases(run, job, args.data, args.output_dir, args.overwrite);
  }
  refuse_what_sampling_cannot_do(args, run, job);
  if (args.num_images >= 0) job.generate.num_images = args.num_images;
  if (args.base_seed >= 0) job.generate.base_seed = args.base_seed;
  auto dist = process_group_from_environment(job);
  GenerateOptions o = generate_options_for(args, run, job);
  o.dist = dist.get();
  return sample_run_images(args, run, job, o, dist.get());
}

}  // namespace

Action add_encode_verb(CLI::App& app) {
  struct Args {
    std::string job, autoencoder, output;
    std::vector<std::string> overrides;
    bool sample = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("encode", "Store the autoencoder latents of a job's images (one file + .json per image)");
  cmd->add_option("job", args->job, "Job file (its data and model.autoencoder)")->required();
  cmd->add_option("overrides", args->overrides, "key=value overrides of the job");
  cmd->add_option("--autoencoder", args->autoencoder, "Autoencoder checkpoint (.safetensors)")->required();
  cmd->add_option("--output", args->output, "Embedding folder to write")->required();
  cmd->add_flag("--sample", args->sample, "Store a sample of q(z|x) instead of its mean");
  return [args] {
    JobSpec job = load_job_file_with_overrides(args->job, args->overrides);
    if (args->sample) job.ldm.encode_sample = true;
    auto dist = process_group_from_environment(job);
    EncodeOptions o{require_file(args->autoencoder, "--autoencoder"), args->output, dist.get(), nullptr};
    o.scale_factor_file = args->output + "/" + k_scale_factor_file;  // the folder is this verb's own output
    // A line as this process's images are encoded (at MAISI size, minutes each).
    ProgressLines progress({.prefix = "encode"});
    o.on_progress = [&progress](std::int64_t done, std::int64_t total) {
      progress.report("images of this process", done, total);
    };
    const auto summary = encode_dataset(job, o);
    if (!dist || dist->rank() == 0)
      std::cout << "latents in " << args->output << " (" << summary.written << " written, " << summary.skipped
                << " already present), scale factor " << summary.scale_factor << "\n";
    return 0;
  };
}

Action add_generate_verb(CLI::App& app) {
  auto args = std::make_shared<GenerateArguments>();
  auto* cmd = app.add_subcommand("generate", "Sample volumes from a task: ldm run: output/image_seed{S}_rank{R}.nii.gz");
  add_generate_options(*cmd, *args);
  return [args] { return run_generate(*args); };
}

}  // namespace medsynth::cli
