// The body of a CT image as a mask, for prepare-label's body envelope
// (label_preparation.cpp): HU above -500, the scanner table and other
// detached pieces removed, holes filled slice by slice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

// The erosion and dilation radius, voxels in x and y: a table up to 4
// voxels thick is cut off even where it touches the body.
constexpr std::size_t k_body_opening_voxels = 2;

// 1 for a voxel of the body, in `image`'s voxel order. The table is removed
// as NV-Generate removes it: the threshold mask eroded in each axial slice
// (k_body_opening_voxels), its connected parts kept when they are at least
// half the largest (the body, or two legs apart) and dropped otherwise (the
// table, a tube, a cushion), the kept parts dilated back (twice as far, so
// that the body's tapering edges return) and cut to the parts of the
// threshold mask they lie in (the body's own outline). Then each axial
// slice's holes (lungs, bowel gas) are filled.
std::vector<std::uint8_t> ct_body_mask(const Volume& image);

}  // namespace medsynth
