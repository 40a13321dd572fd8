#include "support/png_reader.hpp"

#include <png.h>

#include <stdexcept>
#include <string>

namespace medsynth::test {

GrayImage decode_gray_png(std::string_view png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size()))
    throw std::runtime_error(std::string("not a PNG: ") + image.message);
  if (image.format != PNG_FORMAT_GRAY) {
    png_image_free(&image);
    throw std::runtime_error("PNG is not 8-bit gray (format " + std::to_string(image.format) + ")");
  }
  GrayImage out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr))
    throw std::runtime_error(std::string("PNG decoding failed: ") + image.message);
  return out;
}

}  // namespace medsynth::test
