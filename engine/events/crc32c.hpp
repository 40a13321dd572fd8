// CRC32C (Castagnoli) and TFRecord's "masked" variant. Used by the TensorBoard
// writer and the tests' reader (tensorboard_writer.cpp, tests/support/tensorboard_reader.cpp), which
// frame every record with two masked CRCs. Table-driven, no dependency: the
// only users write a few records per step, so no SSE4.2 path is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace medsynth {

// CRC32C of `size` bytes, continuing from `crc` (0 to start).
// Check value: crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size);

inline std::uint32_t crc32c(std::string_view bytes) { return crc32c_extend(0, bytes.data(), bytes.size()); }

// TFRecord stores CRCs rotated and offset, because a CRC of data that itself
// contains CRCs is weak; the constant comes from TensorFlow's record format.
constexpr std::uint32_t mask_crc32c(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

constexpr std::uint32_t unmask_crc32c(std::uint32_t masked) {
  const std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace medsynth
