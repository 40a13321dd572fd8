#include "events/gray_png.hpp"

#include <png.h>

#include <csetjmp>

#include "core/error.hpp"

namespace medsynth {
namespace {

void append_to_string(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), length);
}

void flush_nothing(png_structp) {}

// libpng's documented error path is a longjmp back to encode_gray_png's
// setjmp; an exception thrown through libpng's C frames would rely on how
// Debian compiled them. The message is kept for the exception thrown there.
void keep_error_and_jump(png_structp png, png_const_charp message) {
  *static_cast<std::string*>(png_get_error_ptr(png)) = message;
  png_longjmp(png, 1);
}

void ignore_warning(png_structp, png_const_charp) {}

}  // namespace

std::string encode_gray_png(const GrayImage& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height))
    throw UsageError("encode_gray_png: " + std::to_string(image.pixels.size()) + " pixels for " +
                     std::to_string(image.width) + " x " + std::to_string(image.height));
  std::string error;
  std::string out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, keep_error_and_jump, ignore_warning);
  if (!png) throw RuntimeError("PNG encoding failed: out of memory");
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw RuntimeError("PNG encoding failed: " + (error.empty() ? std::string("out of memory") : error));
  }
  png_set_write_fn(png, &out, append_to_string, flush_nothing);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int row = 0; row < image.height; ++row)
    png_write_row(png, image.pixels.data() + static_cast<std::size_t>(row) * image.width);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace medsynth
