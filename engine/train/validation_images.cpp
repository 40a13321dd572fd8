#include "train/validation_images.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace medsynth {
namespace {

std::uint8_t to_gray(float value) {
  const float clipped = std::clamp(std::isnan(value) ? 0.0f : value, 0.0f, 1.0f);
  return static_cast<std::uint8_t>(std::lround(clipped * 255.0f));
}

}  // namespace

std::string_view to_string(SlicePlane plane) {
  switch (plane) {
    case SlicePlane::axial:
      return "axial";
    case SlicePlane::coronal:
      return "coronal";
    case SlicePlane::sagittal:
      return "sagittal";
  }
  return "axial";
}

GrayImage middle_slice(const Volume& volume, SlicePlane plane) {
  const auto [nx, ny, nz] = volume.size;
  if (volume.voxel_count() == 0 || volume.voxels.size() != volume.voxel_count())
    throw UsageError("middle_slice: an empty volume or one whose voxels do not match its size");
  GrayImage image;
  image.width = static_cast<int>(plane == SlicePlane::sagittal ? ny : nx);
  image.height = static_cast<int>(plane == SlicePlane::axial ? ny : nz);
  image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
  for (int row = 0; row < image.height; ++row) {
    for (int column = 0; column < image.width; ++column) {
      const auto r = static_cast<std::size_t>(row), c = static_cast<std::size_t>(column);
      float v = 0.0f;
      if (plane == SlicePlane::axial) v = volume.at(c, r, nz / 2);
      if (plane == SlicePlane::coronal) v = volume.at(c, ny / 2, nz - 1 - r);
      if (plane == SlicePlane::sagittal) v = volume.at(nx / 2, c, nz - 1 - r);
      image.pixels[r * image.width + c] = to_gray(v);
    }
  }
  return image;
}

GrayImage side_by_side(const GrayImage& left, const GrayImage& right) {
  GrayImage out;
  out.width = left.width + k_side_by_side_gap + right.width;
  out.height = std::max(left.height, right.height);
  out.pixels.assign(static_cast<std::size_t>(out.width) * out.height, 0);
  for (int row = 0; row < out.height; ++row) {
    std::uint8_t* line = out.pixels.data() + static_cast<std::size_t>(row) * out.width;
    if (row < left.height)
      std::copy_n(left.pixels.begin() + static_cast<std::ptrdiff_t>(row) * left.width, left.width, line);
    std::fill_n(line + left.width, k_side_by_side_gap, std::uint8_t{255});
    if (row < right.height)
      std::copy_n(right.pixels.begin() + static_cast<std::ptrdiff_t>(row) * right.width, right.width,
                  line + left.width + k_side_by_side_gap);
  }
  return out;
}

ValidationImages validation_images(std::string item, const Volume& input, const Volume& output) {
  ValidationImages images{.item = std::move(item), .planes = {}};
  for (SlicePlane plane : {SlicePlane::axial, SlicePlane::coronal, SlicePlane::sagittal})
    images.planes.push_back({plane, side_by_side(middle_slice(input, plane), middle_slice(output, plane))});
  return images;
}

}  // namespace medsynth
