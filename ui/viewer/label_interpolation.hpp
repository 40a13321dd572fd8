// The arithmetic of "fill between slices" (issue 55 item 3), as Slicer's
// Segment Editor has it: the slices between two painted ones get the shape
// that morphs from one to the other, the zero level of the linear blend of
// the two slices' signed distance maps (Raya and Udupa's shape-based
// interpolation). Pure functions on 2D grids, millimetre spacing, no VTK or
// widgets, so that tests check them without a display.
#pragma once

#include <cstddef>
#include <vector>

namespace medsynth::ui {

// A 2D grid of `width` x `height` pixels (x fastest), pixel size sx x sy mm.
struct SliceGrid {
  std::size_t width = 0, height = 0;
  double sx = 1.0, sy = 1.0;
  std::size_t count() const { return width * height; }
};

// The Euclidean distance in mm from each pixel to the nearest pixel where
// `mask` is set (0 on the mask); a very large value when the mask is empty.
// Exact, in linear time: Felzenszwalb and Huttenlocher's lower envelope of
// parabolas, one pass per axis.
std::vector<double> distance_to_mask(const std::vector<char>& mask, const SliceGrid& grid);

// Negative inside the mask (minus the distance to the nearest pixel outside
// it), positive outside (the distance to the nearest pixel inside).
std::vector<double> signed_distance(const std::vector<char>& mask, const SliceGrid& grid);

// The mask a fraction t (0..1) of the way from `from` to `to`: where
// (1 - t) * d_from + t * d_to < 0 for their signed distances.
std::vector<char> interpolated_mask(const std::vector<double>& from_distance, const std::vector<double>& to_distance,
                                    double t);

}  // namespace medsynth::ui
