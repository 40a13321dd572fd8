#include "ui/viewer/window_level.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace medsynth::ui {

namespace {

// Hounsfield presets as radiology workstations ship them.
constexpr std::array<WindowPresetInfo, 6> k_presets{{
    {WindowPreset::automatic, "Automatic (1st-99th percentile)", {1.0, 0.5}},
    {WindowPreset::ct_lung, "CT lung (W1400 L-500)", {1400.0, -500.0}},
    {WindowPreset::ct_bone, "CT bone (W1000 L400)", {1000.0, 400.0}},
    {WindowPreset::ct_soft_tissue, "CT soft tissue (W350 L40)", {350.0, 40.0}},
    {WindowPreset::ct_brain, "CT brain (W100 L50)", {100.0, 50.0}},
    {WindowPreset::ct_air, "CT air (W1000 L-426)", {1000.0, -426.0}},
}};

}  // namespace

std::span<const WindowPresetInfo> window_presets() { return k_presets; }

const WindowPresetInfo& window_preset_info(WindowPreset preset) {
  for (const auto& info : k_presets)
    if (info.preset == preset) return info;
  return k_presets.front();
}

QString PercentileOptions::validate() const {
  if (!(low_percentile >= 0.0 && low_percentile <= 100.0))
    return QStringLiteral("low_percentile: must be in [0, 100] (got %1)").arg(low_percentile);
  if (!(high_percentile >= 0.0 && high_percentile <= 100.0))
    return QStringLiteral("high_percentile: must be in [0, 100] (got %1)").arg(high_percentile);
  if (low_percentile > high_percentile)
    return QStringLiteral("low_percentile: must not exceed high_percentile (%1 > %2)")
        .arg(low_percentile)
        .arg(high_percentile);
  if (max_samples < 2) return QStringLiteral("max_samples: must be >= 2 (got %1)").arg(max_samples);
  return {};
}

IntensityStats intensity_stats(const float* voxels, std::size_t count, const PercentileOptions& options) {
  if (const QString problem = options.validate(); !problem.isEmpty())
    throw std::invalid_argument(problem.toStdString());
  IntensityStats stats;
  if (voxels == nullptr || count == 0) return stats;

  // Large volumes: percentiles from a fixed-seed random sample. An even
  // stride would alias with the x-fastest layout (every 16th column only).
  const bool sampled = count > options.max_samples;
  std::vector<float> sample;
  sample.reserve(sampled ? options.max_samples : count);
  bool first = true;
  for (std::size_t i = 0; i < count; ++i) {
    const float v = voxels[i];
    if (!std::isfinite(v)) continue;
    if (first) {
      stats.min = stats.max = v;
      first = false;
    }
    stats.min = std::min<double>(stats.min, v);
    stats.max = std::max<double>(stats.max, v);
    if (!sampled) sample.push_back(v);
    ++stats.finite_count;
  }
  if (sampled) {
    std::mt19937_64 random(0x5eed);
    std::uniform_int_distribution<std::size_t> pick(0, count - 1);
    for (std::size_t n = 0; n < options.max_samples; ++n) {
      const float v = voxels[pick(random)];
      if (std::isfinite(v)) sample.push_back(v);
    }
  }
  if (sample.empty()) {
    // Every sampled voxel was non-finite, though some finite ones exist.
    stats.low = stats.min;
    stats.high = stats.max;
    return stats;
  }
  const auto rank = [&](double percentile) {
    const double position = percentile / 100.0 * static_cast<double>(sample.size() - 1);
    return static_cast<std::size_t>(std::llround(position));
  };
  // nth_element twice instead of a full sort: O(n) for the common case.
  const std::size_t low_rank = rank(options.low_percentile);
  const std::size_t high_rank = rank(options.high_percentile);
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(low_rank), sample.end());
  stats.low = sample[low_rank];
  std::nth_element(sample.begin() + static_cast<std::ptrdiff_t>(low_rank),
                   sample.begin() + static_cast<std::ptrdiff_t>(high_rank), sample.end());
  stats.high = sample[high_rank];
  return stats;
}

WindowLevel percentile_window_level(const IntensityStats& stats) {
  const double span = stats.high - stats.low;
  if (span > 0.0 && std::isfinite(span)) return {span, (stats.low + stats.high) / 2.0};
  // A sparse volume (a marker in a zero background: both percentiles 0)
  // would show as flat grey; its full range shows the structure.
  const double full = stats.max - stats.min;
  if (full > 0.0 && std::isfinite(full)) return {full, (stats.min + stats.max) / 2.0};
  return {1.0, std::isfinite(stats.low) ? stats.low : 0.0};
}

WindowLevel drag_window_level(const WindowLevel& start, double dx_pixels, double dy_pixels, double range,
                              double view_height_pixels) {
  const double span = range > 0.0 && std::isfinite(range) ? range : std::max(start.window, 1.0);
  const double per_pixel = span / std::max(view_height_pixels, 1.0);
  WindowLevel out;
  out.window = std::max(start.window + dx_pixels * per_pixel, span * 1e-4);
  // Qt's y grows downwards: dragging up (dy < 0) raises the level.
  out.level = start.level - dy_pixels * per_pixel;
  return out;
}

}  // namespace medsynth::ui
