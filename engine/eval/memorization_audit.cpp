#include "eval/memorization_audit.hpp"
#include "eval/memorization_limits.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace medsynth {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A ratio against a baseline that may be 0 (identical training cases): then
// any distance above 0 is "far", and 0 is a copy.
double ratio(double distance, double baseline) {
  if (baseline > 0) return distance / baseline;
  return distance > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace

void MemorizationOptions::validate() const {
  if (!(threshold >= 0.0) || !std::isfinite(threshold)) throw UsageError("--memorization-threshold: must be a finite number >= 0");
  ms_ssim.validate();
}

MemorizationReport audit_memorization(const std::vector<at::Tensor>& generated, const std::vector<std::string>& generated_names,
                                      const std::vector<at::Tensor>& training, const std::vector<std::string>& training_names,
                                      const MemorizationOptions& options, const LatentEncoder& encoder, const ParallelMap& map) {
  at::NoGradGuard no_grad;
  options.validate();
  if (training.size() < k_memorization_min_training_cases)
    throw UsageError("memorization audit: needs at least " + std::to_string(k_memorization_min_training_cases) +
                     " training cases (got " + std::to_string(training.size()) + ")");
  const std::size_t g_count = generated.size(), t_count = training.size();
  auto ms_distance = [&](const at::Tensor& a, const at::Tensor& b) { return 1.0 - ms_ssim3d_per_sample(a, b, options.ms_ssim).at(0); };
  auto latent_distance = [](const at::Tensor& a, const at::Tensor& b) {
    return (a - b).pow(2).mean().sqrt().item<double>();  // RMS per latent voxel
  };
  // Training pairs (i < j) and generated x training, each item computed once over the ranks.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i < t_count; ++i)
    for (std::size_t j = i + 1; j < t_count; ++j) pairs.emplace_back(i, j);
  auto nearest_of_pairs = [&](const std::vector<double>& d) {
    std::vector<double> nearest(t_count, std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      nearest[pairs[k].first] = std::min(nearest[pairs[k].first], d[k]);
      nearest[pairs[k].second] = std::min(nearest[pairs[k].second], d[k]);
    }
    return nearest;
  };
  MemorizationReport report;
  const auto train_ms = map.values(pairs.size(), [&](std::size_t k) { return ms_distance(training[pairs[k].first], training[pairs[k].second]); });
  report.training_median_ms_ssim_distance = median(nearest_of_pairs(train_ms));
  const auto gen_ms = map.values(g_count * t_count, [&](std::size_t k) { return ms_distance(generated[k / t_count], training[k % t_count]); });

  std::vector<double> gen_latent;
  if (encoder) {
    // Encoding is cheap next to the pairwise MS-SSIM: every rank encodes all.
    std::vector<at::Tensor> train_latents, gen_latents;
    for (const auto& t : training) train_latents.push_back(encoder(t).to(at::kDouble));
    for (const auto& g : generated) gen_latents.push_back(encoder(g).to(at::kDouble));
    const auto train_latent = map.values(pairs.size(), [&](std::size_t k) { return latent_distance(train_latents[pairs[k].first], train_latents[pairs[k].second]); });
    report.training_median_latent_distance = median(nearest_of_pairs(train_latent));
    gen_latent = map.values(g_count * t_count, [&](std::size_t k) { return latent_distance(gen_latents[k / t_count], train_latents[k % t_count]); });
  }

  for (std::size_t g = 0; g < g_count; ++g) {
    NearestTrainingCase c;
    c.generated = generated_names.at(g);
    c.ms_ssim_distance = std::numeric_limits<double>::infinity();
    c.latent_distance = std::numeric_limits<double>::infinity();
    for (std::size_t t = 0; t < t_count; ++t) {
      const double d = gen_ms[g * t_count + t];
      if (d < c.ms_ssim_distance) c.ms_ssim_distance = d, c.nearest_by_ms_ssim = training_names.at(t);
      if (encoder) {
        const double l = gen_latent[g * t_count + t];
        if (l < c.latent_distance) c.latent_distance = l, c.nearest_by_latent = training_names.at(t);
      }
    }
    c.ms_ssim_ratio = ratio(c.ms_ssim_distance, report.training_median_ms_ssim_distance);
    c.flagged = c.ms_ssim_ratio < options.threshold;
    if (encoder) {
      c.latent_ratio = ratio(c.latent_distance, report.training_median_latent_distance);
      c.flagged = c.flagged || c.latent_ratio < options.threshold;
    } else {
      c.latent_distance = c.latent_ratio = std::numeric_limits<double>::quiet_NaN();
    }
    report.cases.push_back(c);
  }
  return report;
}

}  // namespace medsynth
