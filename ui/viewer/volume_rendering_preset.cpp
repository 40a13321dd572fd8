#include "ui/viewer/volume_rendering_preset.hpp"

#include <array>
#include <cmath>

namespace medsynth::ui {

namespace {

constexpr std::array<VolumePreset, 3> k_presets{VolumePreset::ct_bone, VolumePreset::ct_soft_tissue,
                                                VolumePreset::mri};

// Soft tissue and fat transparent, cortical bone opaque ivory.
const std::vector<TransferPoint> k_ct_bone{
    {-1024.0, 0.0, 0.0, 0.0, 0.0},  {150.0, 0.55, 0.25, 0.15, 0.0}, {300.0, 0.88, 0.78, 0.60, 0.15},
    {700.0, 1.0, 0.94, 0.84, 0.60}, {1500.0, 1.0, 1.0, 1.0, 0.85},  {3071.0, 1.0, 1.0, 1.0, 0.90},
};

// Air and lung transparent; fat to muscle in skin tones; bone white.
const std::vector<TransferPoint> k_ct_soft_tissue{
    {-1024.0, 0.0, 0.0, 0.0, 0.0},  {-160.0, 0.55, 0.25, 0.15, 0.0}, {40.0, 0.88, 0.60, 0.50, 0.40},
    {240.0, 1.0, 0.94, 0.86, 0.60}, {1000.0, 1.0, 1.0, 1.0, 0.80},   {3071.0, 1.0, 1.0, 1.0, 0.80},
};

// Fractions of [low, high]: the darkest fifth (background, noise) transparent.
constexpr std::array<TransferPoint, 4> k_mri_relative{{
    {0.0, 0.0, 0.0, 0.0, 0.0},
    {0.2, 0.60, 0.45, 0.40, 0.0},
    {0.6, 0.90, 0.80, 0.70, 0.35},
    {1.0, 1.0, 1.0, 1.0, 0.80},
}};

}  // namespace

std::span<const VolumePreset> volume_presets() { return k_presets; }

QString volume_preset_name(VolumePreset preset) {
  switch (preset) {
    case VolumePreset::ct_bone: return QStringLiteral("CT bone");
    case VolumePreset::ct_soft_tissue: return QStringLiteral("CT soft tissue");
    case VolumePreset::mri: return QStringLiteral("MRI");
  }
  return {};
}

std::vector<TransferPoint> transfer_function(VolumePreset preset, const IntensityStats& stats) {
  switch (preset) {
    case VolumePreset::ct_bone: return k_ct_bone;
    case VolumePreset::ct_soft_tissue: return k_ct_soft_tissue;
    case VolumePreset::mri: break;
  }
  double low = stats.low;
  double span = stats.high - stats.low;
  if (!std::isfinite(low)) low = 0.0;
  if (!(span > 0.0) || !std::isfinite(span)) span = 1.0;  // flat volume: any increasing ramp
  std::vector<TransferPoint> points;
  for (const auto& p : k_mri_relative) points.push_back({low + p.value * span, p.r, p.g, p.b, p.opacity});
  return points;
}

VolumePreset suggest_volume_preset(const IntensityStats& stats) {
  return stats.finite_count > 0 && stats.min <= -500.0 && stats.max >= 300.0 ? VolumePreset::ct_bone
                                                                              : VolumePreset::mri;
}

PresetChoice choose_volume_preset(const IntensityStats& stats, const std::string& recorded_modality) {
  if (recorded_modality == "ct") return {VolumePreset::ct_bone, false};
  if (recorded_modality == "mri") return {VolumePreset::mri, false};
  return {suggest_volume_preset(stats), true};
}

}  // namespace medsynth::ui
