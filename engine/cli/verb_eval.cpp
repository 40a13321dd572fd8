// `medsynth-engine eval CHECKPOINT [--data X]`: PSNR/SSIM of a checkpoint's
// autoencoder or patch VQ-GAN (whole volumes stitched from its grid patches)
// on held-out volumes (the job's validation split) or on every volume of a
// folder/CSV. The job comes from the checkpoint itself.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "data/volume_dataset.hpp"
#include "train/task.hpp"
#include "train/trainer.hpp"
#include "train/training_state.hpp"

namespace medsynth::cli {

Action add_eval_verb(CLI::App& app) {
  struct Args {
    std::string checkpoint, data;
    std::vector<std::string> overrides;
    int max_volumes = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("eval", "PSNR and 3D SSIM of a checkpoint on held-out or given volumes");
  cmd->add_option("checkpoint", args->checkpoint, "A checkpoint (.safetensors) written by train")->required();
  cmd->add_option("overrides", args->overrides, "Overrides of the checkpoint's job, e.g. training.val_sliding_window=false");
  cmd->add_option("--data", args->data, "Evaluate on every volume of this folder or CSV manifest instead of the job's validation split");
  cmd->add_option("--max-volumes", args->max_volumes, "Evaluate at most this many volumes (0: all)");
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  return [args] {
    TensorFile file = read_tensor_file(args->checkpoint);
    CheckpointIdentity id = check_checkpoint_identity(file, args->checkpoint, {});
    JobSpec job = load_job_text_with_overrides(id.job_yaml, args->overrides, args->checkpoint + " (embedded job)");
    if (model_config_hash(job) != id.model_hash)
      throw UsageError("overrides may not change the model of " + args->checkpoint);
    std::string split = "val";
    if (!args->data.empty()) {
      job.data.source = std::filesystem::path(args->data).extension() == ".csv" ? DataSource::csv : DataSource::folder;
      job.data.path = args->data;
      auto errors = validate_job(job);
      if (!errors.empty()) throw ConfigError(errors, "--data " + args->data);
      split = "all";
    }
    if (job.task != "autoencoder" && job.task != "vqgan")
      throw UsageError(args->checkpoint + ": eval reconstructs volumes with autoencoder and vqgan checkpoints; this one is task " + job.task +
                       " (its validation metrics are in its run's events.jsonl)");
    std::unique_ptr<Task> task = make_task(job);
    restore_weights(*task, file, args->checkpoint, /*prefer_ema=*/true);
    VolumeDataset dataset(job.data, split, job.training.base_seed);
    ValidationResult r = task->validate(dataset, validation_items(dataset.size(), args->max_volumes), 0);
    if (args->json) {
      nlohmann::json out = {{"checkpoint", args->checkpoint}, {"volumes", dataset.size()}, {"metrics", r.metrics}};
      std::cout << out.dump() << "\n";
    } else {
      std::cout << "checkpoint: " << args->checkpoint << "\nvolumes: " << dataset.size() << "\n";
      for (const auto& [name, value] : r.metrics) std::cout << name << " = " << value << "\n";
    }
    return 0;
  };
}

}  // namespace medsynth::cli
