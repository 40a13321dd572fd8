// What a validation shows of one held-out item: the middle axial, coronal and
// sagittal slices of its input beside its output, as 8-bit grayscale. Tasks
// fill ValidationResult::images for their first item (keep_validation_item,
// training_data.hpp); the session writes them as PNG files and TensorBoard
// images (training_validation.cpp); the console shows the PNGs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "events/gray_png.hpp"
#include "volume/volume.hpp"

namespace medsynth {

enum class SlicePlane { axial, coronal, sagittal };
std::string_view to_string(SlicePlane plane);

// The middle slice (index size / 2) of `volume` across `plane`, its [0, 1]
// intensities clipped and mapped to 0..255. In voxel order, as a radiologist
// reads an identity-direction (LPS) volume: axial = z slice, rows along y,
// columns along x, as stored; coronal = y slice and sagittal = x slice, rows
// along z with the highest z (superior) at the top, columns along x or y.
GrayImage middle_slice(const Volume& volume, SlicePlane plane);

// White columns between the input and the output of a side-by-side image:
// CT air is black on both sides, and without them the border is invisible.
inline constexpr int k_side_by_side_gap = 2;

// `left`, the gap, `right`; rows below the shorter one's bottom are black.
GrayImage side_by_side(const GrayImage& left, const GrayImage& right);

struct PlaneImage {
  SlicePlane plane = SlicePlane::axial;
  GrayImage image;  // input | gap | output
};

struct ValidationImages {
  std::string item;                // the dataset id of the item shown
  std::vector<PlaneImage> planes;  // axial, coronal, sagittal; empty: the task has none
};

// The three planes of `input` beside `output` (one grid).
ValidationImages validation_images(std::string item, const Volume& input, const Volume& output);

}  // namespace medsynth
