// A volume file's voxel grid as its header states it, read without the
// voxels: what the header checks (volume_file_check.hpp) return, so that a
// caller can compare files before reading any of them (the contrasts of a
// case, issue 50).
#pragma once

#include <array>
#include <cstddef>

namespace medsynth {

struct HeaderGrid {
  std::array<std::size_t, 3> size{0, 0, 0};  // x, y, z
  std::array<double, 3> spacing{1, 1, 1};    // mm
};

// Size equal and spacing within 0.1 %: the tolerance of same_grid (volume.hpp).
inline bool same_header_grid(const HeaderGrid& a, const HeaderGrid& b) {
  if (a.size != b.size) return false;
  for (int d = 0; d < 3; ++d) {
    const double diff = a.spacing[d] - b.spacing[d];
    if ((diff < 0 ? -diff : diff) > 1e-3 * (a.spacing[d] < 0 ? -a.spacing[d] : a.spacing[d])) return false;
  }
  return true;
}

}  // namespace medsynth
