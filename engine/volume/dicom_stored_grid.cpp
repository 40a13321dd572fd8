#include "volume/dicom_stored_grid.hpp"

#include <cmath>

namespace medsynth {
namespace {

double determinant(const std::array<double, 9>& m) {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

// The grid of `volume` with the axes `reversed` stored from their last index:
// those axes' directions negated, the origin moved to their far end.
DicomStoredGrid reverse_axes(const Volume& volume, const std::array<bool, 3>& reversed) {
  DicomStoredGrid grid;
  grid.reversed = reversed;
  grid.size = volume.size;
  grid.direction = volume.direction;
  grid.origin = volume.origin;
  for (std::size_t a = 0; a < 3; ++a) {
    if (!reversed[a]) continue;
    const double length = static_cast<double>(volume.size[a] - 1) * volume.spacing[a];
    for (std::size_t i = 0; i < 3; ++i) {
      grid.origin[i] += length * volume.direction[i * 3 + a];
      grid.direction[i * 3 + a] = -volume.direction[i * 3 + a];
    }
  }
  return grid;
}

// Whether in-plane axis `a` runs against the display convention: its largest
// component is x or y and negative, or z and positive.
bool against_display(const Volume& volume, std::size_t a) {
  std::size_t dominant = 0;
  for (std::size_t i = 1; i < 3; ++i)
    if (std::fabs(volume.direction[i * 3 + a]) > std::fabs(volume.direction[dominant * 3 + a])) dominant = i;
  const double component = volume.direction[dominant * 3 + a];
  return dominant == 2 ? component > 0 : component < 0;
}

}  // namespace

DicomStoredGrid scanner_stored_grid(const Volume& volume) {
  std::array<bool, 3> reversed{against_display(volume, 0), against_display(volume, 1), false};
  // DICOM derives the normal as row x column: a left-handed stored grid is
  // written from its last slice, along the reversed third axis.
  reversed[2] = determinant(reverse_axes(volume, reversed).direction) < 0;
  return reverse_axes(volume, reversed);
}

DicomStoredGrid stored_grid_matching(const Volume& volume, const std::array<double, 6>& orientation) {
  std::array<bool, 3> reversed{false, false, false};
  for (std::size_t a = 0; a < 2; ++a) {
    double dot = 0;
    for (std::size_t i = 0; i < 3; ++i) dot += volume.direction[i * 3 + a] * orientation[a * 3 + i];
    reversed[a] = dot < -0.5;
  }
  return reverse_axes(volume, reversed);
}

}  // namespace medsynth
