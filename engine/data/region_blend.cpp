#include "data/region_blend.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace medsynth {

std::vector<std::uint8_t> region_of(const Volume& mask, const std::vector<int>& classes, const std::string& mask_name) {
  std::vector<std::uint8_t> region(mask.voxels.size(), 0);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < mask.voxels.size(); ++i) {
    const float v = mask.voxels[i];
    const bool in = classes.empty()
                        ? v != 0.0f
                        : std::find(classes.begin(), classes.end(), static_cast<int>(std::lround(v))) != classes.end();
    region[i] = in ? 1 : 0;
    count += in ? 1 : 0;
  }
  if (count == 0) {
    std::string which = "nonzero voxel";
    if (!classes.empty()) {
      which = "voxel of class";
      for (int c : classes) which += " " + std::to_string(c);
    }
    throw DataError(mask_name, "holds no " + which + ": the region to regenerate is empty");
  }
  return region;
}

std::vector<std::uint8_t> dilate_region(const std::vector<std::uint8_t>& region, const std::array<std::size_t, 3>& size,
                                        int margin) {
  if (margin <= 0) return region;
  std::vector<std::uint8_t> a = region, b(region.size());
  const std::array<std::size_t, 3> stride{1, size[0], size[0] * size[1]};
  // One pass per axis: a voxel is in when any voxel within `margin` along
  // that axis is (the box's separable max).
  for (int axis = 0; axis < 3; ++axis) {
    const std::size_t n = size[axis], s = stride[axis];
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t k = (i / s) % n;
      const std::size_t lo = k >= static_cast<std::size_t>(margin) ? k - margin : 0;
      const std::size_t hi = std::min(n - 1, k + static_cast<std::size_t>(margin));
      std::uint8_t in = 0;
      for (std::size_t j = lo; j <= hi && !in; ++j) in = a[i - k * s + j * s];
      b[i] = in;
    }
    std::swap(a, b);
  }
  return a;
}

Volume blend_region(const Volume& source, const Volume& generated, const std::vector<std::uint8_t>& region) {
  if (source.size != generated.size || source.voxels.size() != region.size())
    throw RuntimeError("blend_region: the generated volume or the region is not on the source's grid");
  Volume out = source;
  for (std::size_t i = 0; i < region.size(); ++i)
    if (region[i]) out.voxels[i] = generated.voxels[i];
  return out;
}

SeamMeasure measure_seam(const Volume& source, const Volume& result, const std::vector<std::uint8_t>& region) {
  SeamMeasure m;
  double result_sum = 0, source_sum = 0;
  const std::array<std::size_t, 3> stride{1, source.size[0], source.size[0] * source.size[1]};
  for (std::size_t i = 0; i < region.size(); ++i) {
    if (!region[i]) continue;
    ++m.region_voxels;
    if (result.voxels[i] != source.voxels[i]) ++m.changed_voxels;
    for (int axis = 0; axis < 3; ++axis) {
      const std::size_t k = (i / stride[axis]) % source.size[axis];
      for (int side : {-1, 1}) {
        if ((side < 0 && k == 0) || (side > 0 && k + 1 >= source.size[axis])) continue;
        const std::size_t j = side < 0 ? i - stride[axis] : i + stride[axis];
        if (region[j]) continue;
        ++m.pairs;
        result_sum += std::fabs(static_cast<double>(result.voxels[i]) - result.voxels[j]);
        source_sum += std::fabs(static_cast<double>(source.voxels[i]) - source.voxels[j]);
      }
    }
  }
  if (m.pairs > 0) {
    m.result_step = result_sum / static_cast<double>(m.pairs);
    m.source_step = source_sum / static_cast<double>(m.pairs);
  }
  return m;
}

}  // namespace medsynth
