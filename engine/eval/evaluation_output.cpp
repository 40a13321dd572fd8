#include "eval/evaluation_output.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "data/ct_phantom.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_listing.hpp"
#include "events/event_writer.hpp"
#include "events/tensorboard_writer.hpp"
#include "volume/atomic_file.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json report_json(const EvaluationReport& r, const EvaluationOptions& o) {
  nlohmann::json j = {{"generated", o.generated}, {"reference", o.reference}, {"grid_zyx", r.grid},
                      {"window_hu", o.window}, {"feature_network", o.feature_network}, {"feature_mode", o.feature_mode}};
  for (const auto& row : r.rows) j["metrics"].push_back({{"metric", row.metric}, {"value", number_or_null(row.value)}, {"note", row.note}});
  for (const auto& [path, value] : r.per_volume_fidelity) j["per_volume"].push_back({{"volume", path}, {"ms_ssim_fidelity", value}});
  j["hu_histogram"] = {{"lo", o.histogram.lo}, {"bin_width", o.histogram.bin_width},
                       {"generated", r.hu_histogram_generated}, {"reference", r.hu_histogram_reference}};
  if (r.audited) {
    j["memorization"] = {{"threshold", o.memorization_threshold}, {"training", o.training},
                         {"training_median_ms_ssim_distance", r.memorization.training_median_ms_ssim_distance},
                         {"training_median_latent_distance", number_or_null(r.memorization.training_median_latent_distance)}};
    for (const auto& c : r.memorization.cases)
      j["memorization"]["cases"].push_back({{"generated", c.generated}, {"nearest_by_ms_ssim", c.nearest_by_ms_ssim},
                                            {"ms_ssim_distance", c.ms_ssim_distance}, {"ms_ssim_ratio", number_or_null(c.ms_ssim_ratio)},
                                            {"nearest_by_latent", c.nearest_by_latent}, {"latent_distance", number_or_null(c.latent_distance)},
                                            {"latent_ratio", number_or_null(c.latent_ratio)}, {"flagged", c.flagged}});
  }
  return j;
}

}  // namespace

std::vector<std::string> training_volume_paths(const JobSpec& job, const std::string& phantom_folder) {
  std::vector<std::string> paths;
  if (job.data.source == DataSource::simulated) {
    const VolumeDataset train(job.data, "train", job.training.base_seed);
    fs::create_directories(phantom_folder);
    for (std::size_t i = 0; i < train.size(); ++i) {
      const auto seed = train.phantom_seed(i);
      const std::string path = (fs::path(phantom_folder) / ("phantom-" + std::to_string(seed) + ".nii.gz")).string();
      if (!fs::exists(path)) write_volume(make_ct_phantom(seed, {job.data.phantom_size, job.data.phantom_spacing, job.data.noise_hu}), path);
      paths.push_back(path);
    }
    return paths;
  }
  const auto all = list_job_volumes(job.data);
  const auto [begin, end] = split_range(all.size(), job.data.val_fraction, /*validation=*/false);
  for (std::size_t i = begin; i < end; ++i) paths.push_back(all[i].path);
  return paths;
}

std::string write_evaluation_files(const EvaluationReport& report, const EvaluationOptions& options, const std::string& out_dir) {
  fs::create_directories(out_dir);
  const std::string table = format_report(report);
  std::string flags;
  for (const auto& c : report.memorization.cases) {
    if (!c.flagged) continue;
    char ratios[96];
    if (std::isfinite(c.latent_ratio))
      std::snprintf(ratios, sizeof ratios, " (MS-SSIM distance ratio %.3g, latent ratio %.3g)", c.ms_ssim_ratio, c.latent_ratio);
    else
      std::snprintf(ratios, sizeof ratios, " (MS-SSIM distance ratio %.3g)", c.ms_ssim_ratio);
    flags += "MEMORIZATION: " + c.generated + " is a near copy of training case " + c.nearest_by_ms_ssim + ratios + "\n";
  }
  write_string_atomically((fs::path(out_dir) / "evaluation.txt").string(), table + flags);
  write_string_atomically((fs::path(out_dir) / "evaluation.json").string(),
                          report_json(report, options).dump(2) + "\n");
  return table + flags;
}

void emit_evaluation_events(const EvaluationReport& report, const EvaluationOptions& options, EventWriter& events, std::int64_t step) {
  for (const auto& row : report.rows)
    if (!std::isnan(row.value)) events.metric(step, "eval/" + row.metric, row.value);
  auto value = [](double v) { return std::isfinite(v) ? EventValue(v) : EventValue(nullptr); };
  for (const auto& c : report.memorization.cases)
    if (c.flagged)
      events.emit(event_schema::memorization, {{event_schema::key::generated, c.generated},
                                               {event_schema::key::nearest, c.nearest_by_ms_ssim},
                                               {"ms_ssim_ratio", value(c.ms_ssim_ratio)},
                                               {"nearest_by_latent", c.nearest_by_latent},
                                               {"latent_ratio", value(c.latent_ratio)},
                                               {"threshold", options.memorization_threshold}});
}

void write_evaluation_scalars(const EvaluationReport& report, const std::string& tb_dir, std::int64_t step) {
  TensorBoardWriter tensorboard(tb_dir);
  for (const auto& row : report.rows)
    if (std::isfinite(row.value)) tensorboard.add_scalar("eval/" + row.metric, row.value, step);
  tensorboard.flush();
}

}  // namespace medsynth
