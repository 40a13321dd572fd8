// Test helpers for hand-made NIfTI files: a known small volume, raw header
// patching (offsets from nifti1.h), gzip in and out with zlib, and conversions
// (to the other byte order, to NIfTI-2) of a file ITK wrote. Used by the
// medsynth_volume tests only.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "volume/volume.hpp"

namespace medsynth::test {

// NIfTI-1 offsets the tests patch.
namespace nifti1 {
inline constexpr std::size_t sizeof_hdr = 0, dim = 40, datatype = 70, bitpix = 72, pixdim = 76, vox_offset = 108,
                             scl_slope = 112, qform_code = 252, sform_code = 254, srow_x = 280, magic = 344,
                             header_size = 348, data_offset = 352;
}

// 5x4x3 voxels of distinct values, spacing/origin exactly representable as
// float, and a non-identity direction (a rotation about z, then about x).
Volume make_test_volume();

template <typename T>
void patch(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}
template <typename T>
T peek(const std::string& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

std::string gzip(const std::string& raw);
std::string gunzip(const std::string& compressed);

// The decompressed bytes of a .nii or .nii.gz, and the reverse (compressing
// when the name ends in .gz).
std::string read_nifti_bytes(const std::filesystem::path& path);
void write_nifti_bytes(const std::filesystem::path& path, const std::string& bytes);

// The same NIfTI-1 file (float32 data) with every header field and voxel in
// the other byte order.
std::string byte_swap_nifti1_float(const std::string& bytes);
// The same NIfTI-1 file as a NIfTI-2 file (540-byte header, offset 544).
std::string nifti1_to_nifti2(const std::string& bytes);

}  // namespace medsynth::test
