// `medsynth-engine evaluate GENERATED --reference DATA`: the numbers that
// judge generated volumes (engine/eval/evaluation.hpp; the protocol is
// docs/evaluation.md). GENERATED is a run directory (its output/ volumes) or
// a folder / CSV of volumes; DATA a folder / CSV, or `phantoms`: the run's own
// simulated training phantoms, written out first. Writes OUT/evaluation.json,
// OUT/evaluation.txt (the table it prints) and OUT/events.jsonl (one metric
// event per number, an artifact event for the table).
#include <CLI/CLI.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/verbs.hpp"
#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "events/progress_lines.hpp"
#include "contract/run_directory.hpp"
#include "data/volume_listing.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "eval/evaluation.hpp"
#include "eval/evaluation_output.hpp"
#include "eval/label_hu_check.hpp"
#include "cli/process_group_from_environment.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"

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
  // A label map beside its image (X_image / X_label, as generate --label
  // writes them) is the image's, checked per label; it is not a volume to judge.
  std::set<std::string> labels;
  for (const auto& e : entries)
    if (auto label = sibling_label_path(e.path)) labels.insert(fs::absolute(*label).lexically_normal().string());
  std::vector<std::string> paths;
  for (const auto& e : entries)
    if (!labels.count(fs::absolute(e.path).lexically_normal().string())) paths.push_back(e.path);
  return paths;
}

// The run's training volumes (simulated: its training phantoms, written out).
std::vector<std::string> run_training_volumes(const std::string& run_dir, const std::string& folder) {
  if (!is_run_directory(run_dir)) throw UsageError("'phantoms': needs a run directory as GENERATED (its job.yaml says which phantoms)");
  const JobSpec job = load_job_file((fs::path(run_dir) / "job.yaml").string());
  if (job.data.source != DataSource::simulated)
    throw UsageError("'phantoms': the run trained on " + job.data.path + ", not on phantoms; give that data instead");
  return training_volume_paths(job, folder);
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
  // Under torchrun, srun or `launch`'s environment the work is spread over the
  // ranks; rank 0 writes the phantoms first and the results at the end.
  const std::unique_ptr<DistContext> dist = process_group_from_environment(JobSpec{});
  o.dist = dist.get();
  const bool rank0 = !dist || dist->rank() == 0;
  if (!rank0) dist->barrier("evaluate inputs");
  o.generated = volumes_of(a.generated, "GENERATED");
  o.reference = a.reference == "phantoms" ? run_training_volumes(a.generated, (fs::path(out) / "reference-phantoms").string())
                                          : volumes_of(a.reference, "--reference");
  if (!a.training.empty()) {
    o.training = a.training == "phantoms" ? (a.reference == "phantoms" ? o.reference
                                                                       : run_training_volumes(a.generated, (fs::path(out) / "reference-phantoms").string()))
                                          : volumes_of(a.training, "--train");
  }
  if (rank0 && dist) dist->barrier("evaluate inputs");
  // The run's own autoencoder measures the latent distance of the audit.
  const fs::path ae_checkpoint = RunDirectory{a.generated}.stage(k_autoencoder_stage).last_checkpoint();
  if (!o.training.empty() && is_run_directory(a.generated) && fs::is_regular_file(ae_checkpoint)) {
    const JobSpec job = load_job_file((fs::path(a.generated) / "job.yaml").string());
    o.encoder = latent_mean_encoder(job, ae_checkpoint.string(), c10::Device(c10::kCPU));
  }
  if (o.trust_torchscript && !o.feature_network.empty())
    std::cerr << "medsynth-engine evaluate: warning: --trust-torchscript: if " << o.feature_network
              << " is TorchScript it will be loaded, and a TorchScript file is a program: it runs its author's code with your permissions\n";
  // Progress lines on stderr (rank 0's): reading each set, then each metric group.
  ProgressLines progress({.prefix = "evaluate"});
  if (rank0)
    o.on_progress = [&progress](std::string_view phase, std::int64_t done, std::int64_t total) {
      progress.report(phase, done, total);
    };
  const EvaluationReport report = evaluate_volumes(o);
  o.on_progress = {};
  if (!rank0) return 0;
  const std::string text = write_evaluation_files(report, o, out);
  EventWriter events(EventWriterOptions{.path = fs::path(out) / "events.jsonl", .rank = 0, .echo_stdout = false});
  emit_evaluation_events(report, o, events, 0);
  events.artifact((fs::path(out) / "evaluation.json").string(), "evaluation", 0);
  write_evaluation_scalars(report, (fs::path(out) / "tb").string(), 0);
  std::cout << text << "written: " << out << "/evaluation.json, evaluation.txt, events.jsonl, tb/\n";
  return 0;
}

}  // namespace

Action add_evaluate_verb(CLI::App& app) {
  auto a = std::make_shared<EvaluateArguments>();
  auto* cmd = app.add_subcommand("evaluate", "Judge generated volumes against a reference set: FID (2.5D/3D), MS-SSIM, MMD, HU checks");
  cmd->add_option("generated", a->generated, "A run directory (its output/ volumes), or a folder or CSV of volumes")->required();
  cmd->add_option("--reference", a->reference, "A folder or CSV of reference volumes, or 'phantoms' (the run's training phantoms)")->required();
  cmd->add_option("--features", a->options.feature_network,
                  "Feature network for FID: MedicalNet (3d) or RadImageNet (2.5d) weights as released (.pth/.pt)");
  cmd->add_flag("--trust-torchscript", a->options.trust_torchscript,
                "Also load --features as TorchScript: a program that runs with your permissions when loaded; only for a file you made or trust");
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
