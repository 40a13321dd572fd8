// Comparing two volumes voxel by voxel where they lie in space, not by index:
// a DICOM export stores a RAS volume's rows and columns reversed (as a scanner
// stores axial CT), so the same image comes back on another index order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "volume/volume.hpp"

namespace medsynth::test {

// The largest |a - b| over a's voxels, each compared with b's voxel at the
// same point (nearest index); infinity when a voxel of a has no voxel of b
// there (the grids do not cover the same space).
inline float largest_difference_in_space(const Volume& a, const Volume& b) {
  float worst = 0.0f;
  for (std::size_t z = 0; z < a.size[2]; ++z)
    for (std::size_t y = 0; y < a.size[1]; ++y)
      for (std::size_t x = 0; x < a.size[0]; ++x) {
        const double index[3] = {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)};
        double point[3];
        for (std::size_t i = 0; i < 3; ++i) {
          point[i] = a.origin[i];
          for (std::size_t k = 0; k < 3; ++k) point[i] += a.direction[i * 3 + k] * index[k] * a.spacing[k];
        }
        std::size_t in_b[3];
        for (std::size_t k = 0; k < 3; ++k) {
          double along = 0;
          for (std::size_t i = 0; i < 3; ++i) along += b.direction[i * 3 + k] * (point[i] - b.origin[i]);
          const double nearest = std::round(along / b.spacing[k]);
          if (nearest < 0 || nearest >= static_cast<double>(b.size[k])) return std::numeric_limits<float>::infinity();
          in_b[k] = static_cast<std::size_t>(nearest);
        }
        worst = std::max(worst, std::abs(a.at(x, y, z) - b.at(in_b[0], in_b[1], in_b[2])));
      }
  return worst;
}

}  // namespace medsynth::test
