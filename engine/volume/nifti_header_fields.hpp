// Decoding of the raw NIfTI-1 (348-byte) and NIfTI-2 (540-byte) headers, in
// either byte order, into one neutral struct; and the qform/sform comparison.
// Private to medsynth_volume: used by the header guard (nifti_header_guard.cpp).
// It only decodes; every judgement about the values is the guard's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace medsynth::nifti_detail {

inline constexpr int k_nifti1_header_size = 348;
inline constexpr int k_nifti2_header_size = 540;

// Every field the guard looks at, widened to the NIfTI-2 types (a NIfTI-1
// vox_offset is a float and may be NaN, so it stays a double here).
struct RawHeader {
  int version = 1;
  bool swapped = false;
  std::string magic;  // the magic bytes as stored (4 for NIfTI-1, 8 for NIfTI-2)
  std::array<std::int64_t, 8> dim{};
  int datatype = 0;
  int bitpix = 0;
  std::array<double, 8> pixdim{};
  double vox_offset = 0;
  double scl_slope = 0;
  double scl_inter = 0;
  int qform_code = 0;
  int sform_code = 0;
  double quatern_b = 0, quatern_c = 0, quatern_d = 0;
  double qoffset_x = 0, qoffset_y = 0, qoffset_z = 0;
  std::array<std::array<double, 4>, 3> srow{};
};

// From the first four bytes (sizeof_hdr): 348 or 540, and whether the file is
// in the other byte order; 0 if neither byte order gives a NIfTI size.
int header_size_from_prefix(const unsigned char* first4, bool& swapped);
// The raw value of sizeof_hdr in this machine's byte order, for messages.
std::int32_t raw_sizeof_hdr(const unsigned char* first4);

// Decodes a whole header of header_size bytes (348 or 540).
RawHeader decode_header(const unsigned char* bytes, int header_size, bool swapped);

// Printable form of magic bytes: "n+1\0" shows as "n+1\\0".
std::string printable_magic(const std::string& magic);

// How far the qform and sform of a header disagree: the largest difference
// of the unit axis directions, the largest relative difference of the axis
// lengths, and the largest offset difference (mm).
struct TransformDifference {
  double rotation = 0;
  double scale = 0;
  double offset_mm = 0;
};
TransformDifference compare_qform_sform(const RawHeader& header);

}  // namespace medsynth::nifti_detail
