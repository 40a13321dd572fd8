// Decodes PNG files back to 8-bit gray pixels (libpng's simplified API), so
// tests can compare the validation slices the engine wrote, in files and in
// TensorBoard images, with the volume they came from.
#pragma once

#include <string_view>

#include "events/gray_png.hpp"

namespace medsynth::test {

// Throws std::runtime_error when the bytes are not a PNG or it is not 8-bit
// gray (converting would hide a wrong colour type).
GrayImage decode_gray_png(std::string_view png);

}  // namespace medsynth::test
