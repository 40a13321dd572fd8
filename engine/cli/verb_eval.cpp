// `medsynth-engine eval CHECKPOINT [--data X]`: PSNR/SSIM of a checkpoint's
// autoencoder or patch VQ-GAN (whole volumes stitched from its grid patches)
// on held-out volumes (the job's validation split) or on every volume of a
// folder/CSV. The job comes from the checkpoint itself. --per-volume adds one
// row per volume and, for CT, where its SSIM is lost: air, soft tissue, bone.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/engine_tasks.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "data/volume_tensor.hpp"
#include "data/volume_dataset.hpp"
#include "metrics/image_metrics.hpp"
#include "contract/run_directory.hpp"
#include "train/task.hpp"
#include "train/volume_scoring.hpp"
#include "state/training_state.hpp"

namespace medsynth::cli {

namespace {

// CT bands in the job's window (a_min..a_max HU -> 0..1): air below -960 HU
// (the window's first 2%), soft tissue and lung up to 200 HU, bone above.
std::vector<IntensityBand> ct_bands(const std::array<double, 2>& window) {
  const auto unit = [&](double hu) { return (hu - window[0]) / (window[1] - window[0]); };
  const double inf = std::numeric_limits<double>::infinity();
  return {{"air", -inf, unit(-960.0)}, {"soft_tissue", unit(-960.0), unit(200.0)}, {"bone", unit(200.0), inf}};
}

// One volume's PSNR, SSIM and (CT) SSIM by band, from its reconstruction.
nlohmann::json volume_row(const JobSpec& job, const std::string& id, const Volume& reference, const Volume& reconstruction) {
  const at::Tensor y = volume_to_tensor(reference), x = volume_to_tensor(reconstruction);
  nlohmann::json row = {{"volume", id}, {"psnr", psnr(x, y, 1.0)}, {"ssim", ssim3d(x, y)}};
  if (job.data.modality == Modality::ct) {
    const double hu_per_unit = job.data.ct_window[1] - job.data.ct_window[0];
    for (const BandSsim& b : ssim3d_by_band(x, y, ct_bands(job.data.ct_window)))
      row["bands"].push_back({{"band", b.name}, {"fraction", b.fraction}, {"ssim", b.ssim}, {"luminance", b.luminance},
                              {"contrast_structure", b.contrast_structure}, {"mean_offset_hu", b.mean_offset * hu_per_unit}});
  }
  return row;
}

void print_row(const nlohmann::json& row) {
  std::printf("%s  psnr %.2f  ssim %.4f", row["volume"].get<std::string>().c_str(), row["psnr"].get<double>(), row["ssim"].get<double>());
  if (row.contains("bands"))
    for (const auto& b : row["bands"])
      if (b["fraction"].get<double>() > 0)
        std::printf("  | %s %.0f%%: ssim %.3f (luminance %.3f, contrast-structure %.3f, offset %+.1f HU)", b["band"].get<std::string>().c_str(),
                    100.0 * b["fraction"].get<double>(), b["ssim"].get<double>(), b["luminance"].get<double>(),
                    b["contrast_structure"].get<double>(), b["mean_offset_hu"].get<double>());
  std::printf("\n");
}

// A run directory stands for its last checkpoint (a pipeline's: its
// autoencoder stage's). Issue 38: `eval RUN_DIR` printed the JSON parser's
// error about a folder.
std::string checkpoint_to_evaluate(const std::string& given) {
  if (!std::filesystem::is_directory(given)) return given;
  const RunDirectory run{given};
  if (!std::filesystem::is_regular_file(run.job_file()))
    throw UsageError(given + ": a folder that is not a run directory (no job.yaml); give a checkpoint (.safetensors) or a run");
  for (const RunDirectory& r : {run, run.stage(k_autoencoder_stage)})
    if (std::filesystem::is_regular_file(r.last_checkpoint())) return r.last_checkpoint();
  throw UsageError(given + ": the run has no checkpoint yet (" + run.last_checkpoint() + ")");
}

}  // namespace

Action add_eval_verb(CLI::App& app) {
  struct Args {
    std::string checkpoint, data;
    std::vector<std::string> overrides;
    int max_volumes = 0;
    bool json = false, per_volume = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("eval", "PSNR and 3D SSIM of a checkpoint on held-out or given volumes");
  cmd->add_option("checkpoint", args->checkpoint,
                  "A checkpoint (.safetensors) written by train, or a run directory (its last checkpoint)")
      ->required();
  cmd->add_option("overrides", args->overrides, "Overrides of the checkpoint's job, e.g. training.val_sliding_window=false");
  cmd->add_option("--data", args->data, "Evaluate on every volume of this folder or CSV manifest instead of the job's validation split");
  cmd->add_option("--max-volumes", args->max_volumes, "Evaluate at most this many volumes (0: all)");
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_flag("--per-volume", args->per_volume,
                "Also one row per volume; for CT, its SSIM split into air, soft tissue and bone (where SSIM is lost, and the mean offset in HU)");
  return [args] {
    args->checkpoint = checkpoint_to_evaluate(args->checkpoint);
    TensorFile file = read_tensor_file(args->checkpoint);
    CheckpointIdentity id = check_checkpoint_identity(file, args->checkpoint, {});
    JobSpec job = load_job_text_with_overrides(id.job_yaml, args->overrides, args->checkpoint + " (embedded job)");
    if (model_config_hash(job) != id.model_hash)
      throw UsageError("overrides may not change the model of " + args->checkpoint);
    std::string split = "val";
    if (!args->data.empty()) {
      apply_data_override(job.data, args->data);
      auto errors = validate_job(job);
      if (!errors.empty()) throw ConfigError(errors, "--data " + args->data);
      split = "all";
    }
    const TaskRegistry& tasks = engine_tasks();
    if (!tasks.traits(job.task).reconstructs_volumes)
      throw UsageError(args->checkpoint + ": eval reconstructs volumes with " +
                       task_names_with(&TaskTraits::reconstructs_volumes, " and ") + " checkpoints; this one is task " +
                       job.task + " (its validation metrics are in its run's events.jsonl)");
    std::unique_ptr<Task> task = tasks.make_task(job);
    auto* scoring = dynamic_cast<VolumeScoring*>(task.get());
    if (!scoring)
      throw RuntimeError("task " + job.task +
                         " has reconstructs_volumes in config/task_catalog.cpp but no VolumeScoring");
    restore_weights(task->modules(), file, args->checkpoint, /*prefer_ema=*/true);
    VolumeDataset dataset(job.data, split, job.training.base_seed);
    const std::vector<std::size_t> items = validation_items(dataset.size(), args->max_volumes);
    ValidationResult r = scoring->validate(dataset, items, 0);
    nlohmann::json rows = nlohmann::json::array();
    if (args->per_volume) {
      for (std::size_t i : items) {
        ValidationResult one = scoring->validate(dataset, {i}, 1);
        if (one.outputs.empty()) throw UsageError(args->checkpoint + ": task " + job.task + " returned no reconstruction for " + dataset.id(i));
        rows.push_back(volume_row(job, dataset.id(i), dataset.get(i), one.outputs.front().second));
      }
    }
    if (args->json) {
      // "volumes": the ones evaluated (--max-volumes), of "available".
      nlohmann::json out = {{"checkpoint", args->checkpoint},
                            {"volumes", items.size()},
                            {"available", dataset.size()},
                            {"metrics", r.metrics}};
      if (args->per_volume) out["per_volume"] = rows;
      std::cout << out.dump() << "\n";
    } else {
      std::cout << "checkpoint: " << args->checkpoint << "\nvolumes: " << items.size() << " of " << dataset.size() << "\n";
      for (const auto& [name, value] : r.metrics) std::cout << name << " = " << value << "\n";
      std::cout.flush();
      for (const auto& row : rows) print_row(row);
    }
    return 0;
  };
}

}  // namespace medsynth::cli
