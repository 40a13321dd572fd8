// Window/level for the viewer's slice views: the CT presets, the automatic
// percentile window for MRI and generated volumes, and the mouse-drag rule.
// Pure functions (no Qt widgets, no VTK) so that the unit tests check them
// without a display; VolumeViewerWidget and snapshot_volume() call them.
#pragma once

#include <cstddef>
#include <span>

#include <QString>

namespace medsynth::ui {

struct WindowLevel {
  double window = 1.0;  // width of the displayed intensity range (> 0)
  double level = 0.5;   // centre of that range
  double lower() const { return level - window / 2.0; }
  double upper() const { return level + window / 2.0; }
  bool operator==(const WindowLevel&) const = default;
};

enum class WindowPreset { automatic, ct_lung, ct_bone, ct_soft_tissue, ct_brain, ct_air };

struct WindowPresetInfo {
  WindowPreset preset;
  const char* name;  // shown in the preset menu
  WindowLevel window_level;  // unused for `automatic`
};

// Every preset in menu order, `automatic` first.
std::span<const WindowPresetInfo> window_presets();
const WindowPresetInfo& window_preset_info(WindowPreset preset);

// Intensity statistics of a volume, computed once when it is loaded.
struct IntensityStats {
  double min = 0.0;
  double max = 0.0;
  double low = 0.0;   // the low_percentile-th percentile
  double high = 0.0;  // the high_percentile-th percentile
  std::size_t finite_count = 0;  // voxels that took part (NaN/Inf are skipped)
};

struct PercentileOptions {
  double low_percentile = 1.0;
  double high_percentile = 99.0;
  // Above this many voxels the percentiles come from a fixed-seed random
  // sample of this size (min/max still see every voxel), which keeps loading
  // a 512x512x1024 volume well under a second.
  std::size_t max_samples = 1u << 24;
  // Empty when valid, else one line naming the bad field.
  QString validate() const;
};

// Min/max over all finite voxels; percentiles by nearest rank over the sorted
// finite values (index round(p/100 * (n-1))). Throws std::invalid_argument
// for invalid options. An empty or all-NaN input gives zeros and count 0.
IntensityStats intensity_stats(const float* voxels, std::size_t count, const PercentileOptions& options = {});

// The window spanning [stats.low, stats.high]; when those are equal (a sparse
// volume) [stats.min, stats.max]; a flat volume gets window 1 centred on its
// value so that it shows as mid-grey instead of dividing by 0.
WindowLevel percentile_window_level(const IntensityStats& stats);

// Right-button drag: moving right widens the window, moving up raises the
// level (the image gets darker) — the ITK-SNAP/3D Slicer habit. `range` is the
// volume's intensity span (max - min); one full-height drag changes the level
// by about one range. The window never drops below range * 1e-4.
WindowLevel drag_window_level(const WindowLevel& start, double dx_pixels, double dy_pixels, double range,
                              double view_height_pixels);

}  // namespace medsynth::ui
