// The engine's in-memory 3D image: voxels as float in ITK order (x fastest),
// with the physical geometry ITK reports (LPS). No ITK or torch types here so
// that the GUI and the engine can both pass it around cheaply.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace medsynth {

struct Volume {
  std::array<std::size_t, 3> size{0, 0, 0};        // voxels along x, y, z
  std::array<double, 3> spacing{1.0, 1.0, 1.0};    // mm
  std::array<double, 3> origin{0.0, 0.0, 0.0};     // mm, LPS, centre of voxel (0,0,0)
  std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major 3x3, columns = axis directions
  std::vector<float> voxels;                       // size[0]*size[1]*size[2], x fastest

  std::size_t voxel_count() const { return size[0] * size[1] * size[2]; }
  std::size_t index(std::size_t x, std::size_t y, std::size_t z) const { return (z * size[1] + y) * size[0] + x; }
  float& at(std::size_t x, std::size_t y, std::size_t z) { return voxels[index(x, y, z)]; }
  float at(std::size_t x, std::size_t y, std::size_t z) const { return voxels[index(x, y, z)]; }
};

// Do two volumes lie on one voxel grid (size, and spacing within 0.1 %)?
// The contrasts of a case must, to be stacked as channels.
inline bool same_grid(const Volume& a, const Volume& b) {
  if (a.size != b.size) return false;
  for (int d = 0; d < 3; ++d)
    if (std::fabs(a.spacing[d] - b.spacing[d]) > 1e-3 * std::fabs(a.spacing[d])) return false;
  return true;
}

// Makes a zero-filled volume of the given size and spacing, identity direction.
// Whether a label map lies on its image's voxel grid: what differs first
// (size, then spacing, origin, direction) or none. One set of tolerances for
// every reader of label maps (the viewer's overlay, export-dicom --label):
// spacing 1e-4 relative, origin half a percent of a voxel (far below anything
// visible, far above NIfTI's float32 rounding), direction cosines 1e-4.
enum class GridDifference { none, size, spacing, origin, direction };

inline GridDifference grid_difference(const Volume& image, const Volume& label) {
  if (image.size != label.size) return GridDifference::size;
  for (int d = 0; d < 3; ++d)
    if (std::fabs(image.spacing[d] - label.spacing[d]) > 1e-4 * std::fmax(1.0, std::fabs(image.spacing[d])))
      return GridDifference::spacing;
  for (int d = 0; d < 3; ++d)
    if (std::fabs(image.origin[d] - label.origin[d]) > 5e-3 * image.spacing[d]) return GridDifference::origin;
  for (int i = 0; i < 9; ++i)
    if (std::fabs(image.direction[i] - label.direction[i]) > 1e-4) return GridDifference::direction;
  return GridDifference::none;
}

inline Volume make_volume(std::array<std::size_t, 3> size, std::array<double, 3> spacing = {1.0, 1.0, 1.0}) {
  Volume v;
  v.size = size;
  v.spacing = spacing;
  v.voxels.assign(size[0] * size[1] * size[2], 0.0f);
  return v;
}

}  // namespace medsynth
