// `medsynth-engine evaluate GENERATED --reference DATA`: the numbers that
// judge generated volumes (engine/eval/evaluation.hpp; the protocol is
// docs/evaluation.md). GENERATED is a run directory (its output/ volumes) or
// a folder / CSV of volumes; DATA a folder / CSV, or `phantoms`: the run's own
// simulated training phantoms, written out first. Writes OUT/evaluation.json,
// OUT/evaluation.txt (the table it prints) and OUT/events.jsonl (one metric
// event per number, an artifact event for the table).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "data/ct_phantom.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_listing.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "eval/evaluation.hpp"
#include "events/event_writer.hpp"
#include "run/run_directory.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

struct EvaluateArguments {
  std::string generated;
  std::string reference;
  std::string training;
  std::string out;
  std::vector<double> window{-1000.0, 1000.0};
  std::vector<std::int64_t> grid;
  EvaluationOptions options;
};

bool is_run_directory(const std::string& path) { return fs::is_regular_file(fs::path(path) / "job.yaml") && fs::is_directory(fs::path(path) / "output"); }

std::vector<std::string> volumes_of(const std::string& source, const char* what) {
  std::vector<VolumeEntry> entries;
  if (fs::is_directory(source) && is_run_directory(source))
    entries = list_volume_folder((fs::path(source) / "output").string());
  else if (fs::is_regular_file(source) && fs::path(source).extension() == ".csv")
    entries = read_volume_manifest(source);
  else if (fs::is_directory(source))
    entries = list_volume_folder(source);
  else
    throw UsageError(std::string(what) + ": no such run directory, folder or CSV: " + source);
  std::vector<std::string> paths;
  for (const auto& e : entries) paths.push_back(e.path);
  return paths;
}

// The run's simulated training phantoms (the same seeds training used), as files.
std::vector<std::string> write_training_phantoms(const std::string& run_dir, const std::string& folder) {
  if (!is_run_directory(run_dir)) throw UsageError("--reference phantoms: needs a run directory as GENERATED (its job.yaml says which phantoms)");
  const JobSpec job = load_job_file((fs::path(run_dir) / "job.yaml").string());
  if (job.data.source != DataSource::simulated)
    throw UsageError("--reference phantoms: the run trained on " + job.data.path + ", not on phantoms; give that data as --reference");
  const VolumeDataset train(job.data, "train", job.training.base_seed);
  fs::create_directories(folder);
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < train.size(); ++i) {
    const auto seed = train.phantom_seed(i);
    const std::string path = (fs::path(folder) / ("phantom-" + std::to_string(seed) + ".nii.gz")).string();
    write_volume(make_ct_phantom(seed, {job.data.phantom_size, job.data.phantom_spacing, job.data.noise_hu}), path);
    paths.push_back(path);
  }
  return paths;
}

nlohmann::json report_json(const EvaluationReport& r, const EvaluationOptions& o) {
  nlohmann::json j = {{"generated", o.generated}, {"reference", o.reference}, {"grid_zyx", r.grid},
                      {"window_hu", o.window}, {"feature_network", o.feature_network}, {"feature_mode", o.feature_mode}};
  for (const auto& row : r.rows)
    j["metrics"].push_back({{"metric", row.metric}, {"value", std::isnan(row.value) ? nlohmann::json() : nlohmann::json(row.value)}, {"note", row.note}});
  for (const auto& [path, value] : r.per_volume_fidelity) j["per_volume"].push_back({{"volume", path}, {"ms_ssim_fidelity", value}});
  if (r.audited) {
    auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
    j["memorization"] = {{"threshold", o.memorization_threshold}, {"training", o.training},
                         {"training_median_ms_ssim_distance", r.memorization.training_median_ms_ssim_distance},
                         {"training_median_latent_distance", number(r.memorization.training_median_latent_distance)}};
    for (const auto& c : r.memorization.cases)
      j["memorization"]["cases"].push_back({{"generated", c.generated}, {"nearest_by_ms_ssim", c.nearest_by_ms_ssim},
                                            {"ms_ssim_distance", c.ms_ssim_distance}, {"ms_ssim_ratio", number(c.ms_ssim_ratio)},
                                            {"nearest_by_latent", c.nearest_by_latent}, {"latent_distance", number(c.latent_distance)},
                                            {"latent_ratio", number(c.latent_ratio)}, {"flagged", c.flagged}});
  }
  return j;
}

int run_evaluate(EvaluateArguments& a) {
  if (a.window.size() != 2) throw UsageError("--window: give LOW HIGH in HU");
  if (!a.grid.empty() && a.grid.size() != 3) throw UsageError("--grid: give Z Y X");
  EvaluationOptions& o = a.options;
  o.window = {a.window[0], a.window[1]};
  if (!a.grid.empty()) o.grid = {a.grid[0], a.grid[1], a.grid[2]};
  const std::string out = !a.out.empty() ? a.out
                          : is_run_directory(a.generated) ? (fs::path(a.generated) / "evaluation").string()
                                                          : std::string("evaluation");
  o.generated = volumes_of(a.generated, "GENERATED");
  o.reference = a.reference == "phantoms" ? write_training_phantoms(a.generated, (fs::path(out) / "reference-phantoms").string())
                                          : volumes_of(a.reference, "--reference");
  if (!a.training.empty()) {
    o.training = a.training == "phantoms" ? (a.reference == "phantoms" ? o.reference
                                                                       : write_training_phantoms(a.generated, (fs::path(out) / "reference-phantoms").string()))
                                          : volumes_of(a.training, "--train");
  }
  // The run's own autoencoder measures the latent distance of the audit.
  std::shared_ptr<AutoencoderKL> autoencoder;
  const fs::path ae_checkpoint = fs::path(a.generated) / "autoencoder" / "checkpoints" / "last.safetensors";
  if (!o.training.empty() && is_run_directory(a.generated) && fs::is_regular_file(ae_checkpoint)) {
    const JobSpec job = load_job_file((fs::path(a.generated) / "job.yaml").string());
    autoencoder = std::make_shared<AutoencoderKL>(load_autoencoder(job, ae_checkpoint.string(), c10::Device(c10::kCPU)));
    o.encoder = [autoencoder](const at::Tensor& x) { return (*autoencoder)->encode(x).first; };
  }
  const EvaluationReport report = evaluate_volumes(o);
  fs::create_directories(out);
  const std::string table = format_report(report);
  write_text_file_atomic((fs::path(out) / "evaluation.txt").string(), table);  // flags follow below
  write_text_file_atomic((fs::path(out) / "evaluation.json").string(), report_json(report, o).dump(2) + "\n");
  EventWriter events(EventWriterOptions{.path = fs::path(out) / "events.jsonl", .rank = 0, .echo_stdout = false});
  for (const auto& row : report.rows)
    if (!std::isnan(row.value)) events.metric(0, "eval/" + row.metric, row.value);
  std::string flags;
  for (const auto& c : report.memorization.cases) {
    if (!c.flagged) continue;
    auto value = [](double v) { return std::isfinite(v) ? EventValue(v) : EventValue(nullptr); };
    events.emit("memorization", {{"generated", c.generated}, {"nearest", c.nearest_by_ms_ssim}, {"ms_ssim_ratio", value(c.ms_ssim_ratio)},
                                 {"nearest_by_latent", c.nearest_by_latent}, {"latent_ratio", value(c.latent_ratio)},
                                 {"threshold", o.memorization_threshold}});
    char ratios[96];
    if (std::isfinite(c.latent_ratio))
      std::snprintf(ratios, sizeof ratios, " (MS-SSIM distance ratio %.3g, latent ratio %.3g)", c.ms_ssim_ratio, c.latent_ratio);
    else
      std::snprintf(ratios, sizeof ratios, " (MS-SSIM distance ratio %.3g)", c.ms_ssim_ratio);
    flags += "MEMORIZATION: " + c.generated + " is a near copy of training case " + c.nearest_by_ms_ssim + ratios + "\n";
  }
  events.artifact((fs::path(out) / "evaluation.json").string(), "evaluation", 0);
  std::cout << table << flags << "written: " << out << "/evaluation.json, evaluation.txt, events.jsonl\n";
  return 0;
}

}  // namespace

Action add_evaluate_verb(CLI::App& app) {
  auto a = std::make_shared<EvaluateArguments>();
  auto* cmd = app.add_subcommand("evaluate", "Judge generated volumes against a reference set: FID (2.5D/3D), MS-SSIM, MMD, HU checks");
  cmd->add_option("generated", a->generated, "A run directory (its output/ volumes), or a folder or CSV of volumes")->required();
  cmd->add_option("--reference", a->reference, "A folder or CSV of reference volumes, or 'phantoms' (the run's training phantoms)")->required();
  cmd->add_option("--features", a->options.feature_network, "TorchScript feature network for FID (e.g. RadImageNet ResNet-50 for 2.5d, MedicalNet for 3d)");
  cmd->add_option("--feature-mode", a->options.feature_mode, "2.5d: slices of the three planes (NV-Generate's protocol); 3d: whole volumes")->capture_default_str();
  cmd->add_option("--center-slices-ratio", a->options.center_slices_ratio, "2.5d: use the middle share of each axis")->capture_default_str();
  cmd->add_option("--every-k-slices", a->options.every_k_slices, "2.5d: every k-th slice")->capture_default_str();
  cmd->add_option("--window", a->window, "HU window mapped to [0, 1] for MS-SSIM, MMD and FID")->expected(2)->capture_default_str();
  cmd->add_option("--grid", a->grid, "Evaluation grid Z Y X (default: the first generated volume's)")->expected(3);
  cmd->add_option("--train", a->training,
                  "Memorization audit against these training volumes (folder, CSV, or 'phantoms': the run's training phantoms)");
  cmd->add_option("--memorization-threshold", a->options.memorization_threshold,
                  "Flag a generated volume nearer to a training case than this times the training cases' own median nearest distance")
      ->capture_default_str();
  cmd->add_option("--out", a->out, "Output folder (default: RUN/evaluation, or ./evaluation)");
  return [a] { return run_evaluate(*a); };
}

}  // namespace medsynth::cli
