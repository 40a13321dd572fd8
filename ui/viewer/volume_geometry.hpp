// Index <-> physical (LPS, mm) mapping of a medsynth::Volume and the voxel
// lookup behind "value under the cursor": world point -> continuous index ->
// nearest voxel -> value. Pure (no VTK, no widgets): the slice views, the
// crosshair, the snapshot and the unit tests share it. world = origin +
// direction * (spacing .* index), as ITK defines it.
#pragma once

#include <array>
#include <cstdint>

#include "volume/volume.hpp"

namespace medsynth::ui {

using Vec3 = std::array<double, 3>;
using Index3 = std::array<std::int64_t, 3>;

class VolumeGeometry {
 public:
  VolumeGeometry() = default;
  // Throws std::invalid_argument when spacing <= 0 or the direction is singular.
  explicit VolumeGeometry(const Volume& volume);

  const std::array<std::size_t, 3>& size() const { return size_; }
  const Vec3& spacing() const { return spacing_; }
  const Vec3& origin() const { return origin_; }
  const std::array<double, 9>& direction() const { return direction_; }

  Vec3 index_to_world(const Vec3& continuous_index) const;
  Vec3 world_to_index(const Vec3& world) const;
  // Nearest voxel centre's index (may lie outside the grid: check contains()).
  Index3 nearest_index(const Vec3& world) const;
  bool contains(const Index3& index) const;
  Index3 clamp(const Index3& index) const;
  Vec3 voxel_center(const Index3& index) const;
  // World position of the central voxel (integer index size/2).
  Vec3 center() const;
  // Axis-aligned world bounds of the grid including the half-voxel border:
  // {xmin, xmax, ymin, ymax, zmin, zmax}.
  std::array<double, 6> world_bounds() const;
  // Distance in mm between neighbouring slices seen along a unit world
  // direction (spacing of the best-aligned axis for an oblique grid).
  double slice_step(const Vec3& unit_direction) const;
  // Physical size of the grid's diagonal in mm.
  double diagonal() const;

 private:
  std::array<std::size_t, 3> size_{0, 0, 0};
  Vec3 spacing_{1.0, 1.0, 1.0};
  Vec3 origin_{0.0, 0.0, 0.0};
  std::array<double, 9> direction_{1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::array<double, 9> inverse_direction_{1, 0, 0, 0, 1, 0, 0, 0, 1};
};

// What lies at a world point: the nearest voxel and its value.
struct VoxelProbe {
  bool inside = false;  // false: the point is outside the grid; index/value are not meaningful
  Index3 index{0, 0, 0};
  Vec3 world{0.0, 0.0, 0.0};  // the point asked about (not snapped)
  float value = 0.0f;
};

VoxelProbe probe_voxel(const Volume& volume, const VolumeGeometry& geometry, const Vec3& world);

}  // namespace medsynth::ui
