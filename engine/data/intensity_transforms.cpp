#include "data/intensity_transforms.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

void apply_ct_window(Volume& volume, double lo_hu, double hi_hu) {
  if (!(lo_hu < hi_hu) || !std::isfinite(lo_hu) || !std::isfinite(hi_hu)) {
    throw ConfigError({{"data.ct_window", "must be [lo, hi] with lo < hi (got [" + std::to_string(lo_hu) + ", " +
                                              std::to_string(hi_hu) + "])"}});
  }
  const double scale = 1.0 / (hi_hu - lo_hu);
  for (float& v : volume.voxels) {
    const double t = (std::clamp(double(v), lo_hu, hi_hu) - lo_hu) * scale;
    v = static_cast<float>(t);
  }
}

double volume_percentile(const Volume& volume, double q) {
  const std::size_t n = volume.voxels.size();
  if (n == 0) throw RuntimeError("volume_percentile: empty volume");
  std::vector<float> values(volume.voxels);
  const double rank = std::clamp(q, 0.0, 100.0) / 100.0 * double(n - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(rank));
  const double frac = rank - double(below);
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(below), values.end());
  const double lo = values[below];
  if (frac == 0.0 || below + 1 >= n) return lo;
  // The next rank is the smallest value above position `below`.
  const double hi = *std::min_element(values.begin() + std::ptrdiff_t(below) + 1, values.end());
  return lo + frac * (hi - lo);
}

void normalize_percentiles(Volume& volume, double lo_percentile, double hi_percentile, bool clip) {
  if (!(lo_percentile >= 0.0 && lo_percentile < hi_percentile && hi_percentile <= 100.0)) {
    throw ConfigError({{"data.mri_percentiles", "must be [lo, hi] with 0 <= lo < hi <= 100 (got [" +
                                                    std::to_string(lo_percentile) + ", " +
                                                    std::to_string(hi_percentile) + "])"}});
  }
  if (volume.voxels.empty()) return;
  const double lo = volume_percentile(volume, lo_percentile);
  const double hi = volume_percentile(volume, hi_percentile);
  if (!(hi > lo)) {
    std::fill(volume.voxels.begin(), volume.voxels.end(), 0.0f);
    return;
  }
  const double scale = 1.0 / (hi - lo);
  for (float& v : volume.voxels) {
    const double t = (double(v) - lo) * scale;
    v = static_cast<float>(clip ? std::clamp(t, 0.0, 1.0) : t);
  }
}

}  // namespace medsynth
