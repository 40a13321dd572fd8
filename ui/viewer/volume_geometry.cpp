#include "ui/viewer/volume_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace medsynth::ui {

namespace {

// Row-major 3x3 inverse; ITK directions are orthonormal in practice, but a
// NIfTI sform may be sheared, so this does not assume a rotation.
std::array<double, 9> invert(const std::array<double, 9>& m) {
  const double c00 = m[4] * m[8] - m[5] * m[7];
  const double c01 = m[5] * m[6] - m[3] * m[8];
  const double c02 = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  if (!(std::abs(det) > 1e-12) || !std::isfinite(det)) throw std::invalid_argument("direction matrix is singular");
  const double inv = 1.0 / det;
  return {c00 * inv, (m[2] * m[7] - m[1] * m[8]) * inv, (m[1] * m[5] - m[2] * m[4]) * inv,
          c01 * inv, (m[0] * m[8] - m[2] * m[6]) * inv, (m[2] * m[3] - m[0] * m[5]) * inv,
          c02 * inv, (m[1] * m[6] - m[0] * m[7]) * inv, (m[0] * m[4] - m[1] * m[3]) * inv};
}

}  // namespace

VolumeGeometry::VolumeGeometry(const Volume& volume)
    : size_(volume.size), spacing_(volume.spacing), origin_(volume.origin), direction_(volume.direction) {
  for (int a = 0; a < 3; ++a)
    if (!(spacing_[a] > 0.0) || !std::isfinite(spacing_[a]))
      throw std::invalid_argument("spacing must be positive (axis " + std::to_string(a) + ")");
  inverse_direction_ = invert(direction_);
}

Vec3 VolumeGeometry::index_to_world(const Vec3& index) const {
  const Vec3 scaled{index[0] * spacing_[0], index[1] * spacing_[1], index[2] * spacing_[2]};
  Vec3 world = origin_;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) world[r] += direction_[r * 3 + c] * scaled[c];
  return world;
}

Vec3 VolumeGeometry::world_to_index(const Vec3& world) const {
  const Vec3 d{world[0] - origin_[0], world[1] - origin_[1], world[2] - origin_[2]};
  Vec3 index{0.0, 0.0, 0.0};
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) index[r] += inverse_direction_[r * 3 + c] * d[c];
    index[r] /= spacing_[r];
  }
  return index;
}

Index3 VolumeGeometry::nearest_index(const Vec3& world) const {
  const Vec3 index = world_to_index(world);
  Index3 out{};
  constexpr double limit = static_cast<double>(std::numeric_limits<std::int32_t>::max());
  // Clamp before rounding so that a point far away cannot overflow.
  for (int a = 0; a < 3; ++a) out[a] = std::llround(std::clamp(index[a], -limit, limit));
  return out;
}

bool VolumeGeometry::contains(const Index3& index) const {
  for (int a = 0; a < 3; ++a)
    if (index[a] < 0 || index[a] >= static_cast<std::int64_t>(size_[a])) return false;
  return true;
}

Index3 VolumeGeometry::clamp(const Index3& index) const {
  Index3 out{};
  for (int a = 0; a < 3; ++a)
    out[a] = std::clamp<std::int64_t>(index[a], 0, std::max<std::int64_t>(0, static_cast<std::int64_t>(size_[a]) - 1));
  return out;
}

Vec3 VolumeGeometry::voxel_center(const Index3& index) const {
  return index_to_world({static_cast<double>(index[0]), static_cast<double>(index[1]), static_cast<double>(index[2])});
}

Vec3 VolumeGeometry::center() const {
  return voxel_center({static_cast<std::int64_t>(size_[0] / 2), static_cast<std::int64_t>(size_[1] / 2),
                       static_cast<std::int64_t>(size_[2] / 2)});
}

std::array<double, 6> VolumeGeometry::world_bounds() const {
  std::array<double, 6> b{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                          std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                          std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};
  for (int corner = 0; corner < 8; ++corner) {
    Vec3 index{};
    for (int a = 0; a < 3; ++a)
      index[a] = (corner >> a & 1) ? static_cast<double>(size_[a]) - 0.5 : -0.5;
    const Vec3 w = index_to_world(index);
    for (int a = 0; a < 3; ++a) {
      b[2 * a] = std::min(b[2 * a], w[a]);
      b[2 * a + 1] = std::max(b[2 * a + 1], w[a]);
    }
  }
  return b;
}

double VolumeGeometry::slice_step(const Vec3& unit_direction) const {
  // The index axis most parallel to the direction decides the step.
  double best = -1.0;
  double step = spacing_[0];
  for (int c = 0; c < 3; ++c) {
    const double alignment = std::abs(direction_[c] * unit_direction[0] + direction_[3 + c] * unit_direction[1] +
                                      direction_[6 + c] * unit_direction[2]);
    if (alignment > best) {
      best = alignment;
      step = spacing_[c];
    }
  }
  return step;
}

double VolumeGeometry::diagonal() const {
  double sum = 0.0;
  for (int a = 0; a < 3; ++a) sum += std::pow(static_cast<double>(size_[a]) * spacing_[a], 2);
  return std::sqrt(sum);
}

VoxelProbe probe_voxel(const Volume& volume, const VolumeGeometry& geometry, const Vec3& world) {
  VoxelProbe probe;
  probe.world = world;
  probe.index = geometry.nearest_index(world);
  probe.inside = geometry.contains(probe.index) && volume.voxels.size() == volume.voxel_count();
  if (probe.inside)
    probe.value = volume.at(static_cast<std::size_t>(probe.index[0]), static_cast<std::size_t>(probe.index[1]),
                            static_cast<std::size_t>(probe.index[2]));
  return probe;
}

}  // namespace medsynth::ui
