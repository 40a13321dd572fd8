// The median every check of the engine reports, numpy's (np.median): the
// middle value, or the mean of the two middle values for an even count, as
// NV-Generate's quality check and MONAI's statistics compute it, so that a
// per-label HU check and the organ quality check never disagree on one image.
// Reorders `values` (partial sort); NaN for none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace medsynth {

inline double numpy_median(std::vector<float>& values) {
  const std::size_t n = values.size();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const auto upper = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), upper, values.end());
  if (n % 2 == 1) return *upper;
  const double high = *upper;
  const double low = *std::max_element(values.begin(), upper);
  return (low + high) / 2.0;
}

}  // namespace medsynth
