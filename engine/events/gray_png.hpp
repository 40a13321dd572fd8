// An 8-bit grayscale picture and its PNG encoding (libpng), for the
// validation slices a run writes as PNG files and TensorBoard images
// (train/validation_images.hpp, TensorBoardWriter::add_gray_png).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace medsynth {

struct GrayImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // row-major, top row first: width * height

  std::uint8_t at(int column, int row) const { return pixels[static_cast<std::size_t>(row) * width + column]; }
};

// The PNG file's bytes (colour type gray, 8 bits). Throws UsageError when
// pixels does not hold width * height values or a side is 0, RuntimeError
// when libpng fails.
std::string encode_gray_png(const GrayImage& image);

}  // namespace medsynth
