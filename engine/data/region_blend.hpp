// The voxel arithmetic of regenerating one region of a real image (generate
// --inpaint, issue 55): the region from a mask or from some of a label map's
// classes, grown by a margin, the generated volume copied in only there, and
// the seam measured where the copy meets the source. No LibTorch: the
// sampling is diffusion/region_inpainting's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

// The region of `mask` (one byte per voxel, 1 inside): its voxels that are
// nonzero, or, with `classes`, those whose value is one of them. DataError
// naming `mask_name` when no voxel is in it.
std::vector<std::uint8_t> region_of(const Volume& mask, const std::vector<int>& classes, const std::string& mask_name);

// The region grown by `margin` voxels along each axis (a box of side
// 2 x margin + 1 around every voxel).
std::vector<std::uint8_t> dilate_region(const std::vector<std::uint8_t>& region, const std::array<std::size_t, 3>& size,
                                        int margin);

// `source` where `region` is 0, `generated` where it is 1: every voxel outside
// the region keeps its value bit for bit. Both on one grid (RuntimeError
// otherwise); the result has the source's geometry.
Volume blend_region(const Volume& source, const Volume& generated, const std::vector<std::uint8_t>& region);

// How visible the region's border is: the mean absolute step between face
// neighbours of which one is in the region and one is not, in the result and,
// for comparison, in the source (the anatomy's own steps there).
struct SeamMeasure {
  double result_step = 0;  // in the image's units (HU for CT)
  double source_step = 0;
  std::int64_t pairs = 0;           // neighbour pairs across the border
  std::int64_t region_voxels = 0;   // voxels of the region
  std::int64_t changed_voxels = 0;  // of them, those whose value differs from the source
};
SeamMeasure measure_seam(const Volume& source, const Volume& result, const std::vector<std::uint8_t>& region);

}  // namespace medsynth
