// Decoding NIfTI-1/NIfTI-2 headers by offset, so the guard never trusts a
// struct layout or the machine's byte order. Offsets follow nifti1.h/nifti2.h.
#include "volume/nifti_header_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace medsynth::nifti_detail {
namespace {

template <typename T>
T load(const unsigned char* bytes, std::size_t offset, bool swapped) {
  unsigned char tmp[sizeof(T)];
  std::memcpy(tmp, bytes + offset, sizeof(T));
  if (swapped) std::reverse(tmp, tmp + sizeof(T));
  T value;
  std::memcpy(&value, tmp, sizeof(T));
  return value;
}

RawHeader decode_nifti1(const unsigned char* b, bool sw) {
  RawHeader h;
  h.version = 1;
  h.swapped = sw;
  h.magic.assign(reinterpret_cast<const char*>(b + 344), 4);
  for (int i = 0; i < 8; ++i) h.dim[i] = load<std::int16_t>(b, 40 + 2 * i, sw);
  h.datatype = load<std::int16_t>(b, 70, sw);
  h.bitpix = load<std::int16_t>(b, 72, sw);
  for (int i = 0; i < 8; ++i) h.pixdim[i] = load<float>(b, 76 + 4 * i, sw);
  h.vox_offset = load<float>(b, 108, sw);
  h.scl_slope = load<float>(b, 112, sw);
  h.scl_inter = load<float>(b, 116, sw);
  h.qform_code = load<std::int16_t>(b, 252, sw);
  h.sform_code = load<std::int16_t>(b, 254, sw);
  h.quatern_b = load<float>(b, 256, sw);
  h.quatern_c = load<float>(b, 260, sw);
  h.quatern_d = load<float>(b, 264, sw);
  h.qoffset_x = load<float>(b, 268, sw);
  h.qoffset_y = load<float>(b, 272, sw);
  h.qoffset_z = load<float>(b, 276, sw);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) h.srow[r][c] = load<float>(b, 280 + 16 * r + 4 * c, sw);
  return h;
}

RawHeader decode_nifti2(const unsigned char* b, bool sw) {
  RawHeader h;
  h.version = 2;
  h.swapped = sw;
  h.magic.assign(reinterpret_cast<const char*>(b + 4), 8);
  h.datatype = load<std::int16_t>(b, 12, sw);
  h.bitpix = load<std::int16_t>(b, 14, sw);
  for (int i = 0; i < 8; ++i) h.dim[i] = load<std::int64_t>(b, 16 + 8 * i, sw);
  for (int i = 0; i < 8; ++i) h.pixdim[i] = load<double>(b, 104 + 8 * i, sw);
  // Widened to double like NIfTI-1's float; offsets past 2^53 are far beyond
  // any cap, so the rounding never decides a check.
  h.vox_offset = static_cast<double>(load<std::int64_t>(b, 168, sw));
  h.scl_slope = load<double>(b, 176, sw);
  h.scl_inter = load<double>(b, 184, sw);
  h.qform_code = load<std::int32_t>(b, 344, sw);
  h.sform_code = load<std::int32_t>(b, 348, sw);
  h.quatern_b = load<double>(b, 352, sw);
  h.quatern_c = load<double>(b, 360, sw);
  h.quatern_d = load<double>(b, 368, sw);
  h.qoffset_x = load<double>(b, 376, sw);
  h.qoffset_y = load<double>(b, 384, sw);
  h.qoffset_z = load<double>(b, 392, sw);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) h.srow[r][c] = load<double>(b, 400 + 32 * r + 8 * c, sw);
  return h;
}

}  // namespace

int header_size_from_prefix(const unsigned char* first4, bool& swapped) {
  const auto native = load<std::int32_t>(first4, 0, false);
  const auto other = load<std::int32_t>(first4, 0, true);
  for (int size : {k_nifti1_header_size, k_nifti2_header_size}) {
    if (native == size) {
      swapped = false;
      return size;
    }
    if (other == size) {
      swapped = true;
      return size;
    }
  }
  return 0;
}

std::int32_t raw_sizeof_hdr(const unsigned char* first4) { return load<std::int32_t>(first4, 0, false); }

RawHeader decode_header(const unsigned char* bytes, int header_size, bool swapped) {
  return header_size == k_nifti2_header_size ? decode_nifti2(bytes, swapped) : decode_nifti1(bytes, swapped);
}

std::string printable_magic(const std::string& magic) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : magic) {
    if (c == 0) {
      out += "\\0";
    } else if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

TransformDifference compare_qform_sform(const RawHeader& h) {
  // The qform rotation from its quaternion (nifti1.h, "METHOD 2").
  double b = h.quatern_b, c = h.quatern_c, d = h.quatern_d;
  double a2 = 1.0 - (b * b + c * c + d * d);
  double a = 0.0;
  if (a2 > 1e-7) {
    a = std::sqrt(a2);
  } else {  // 180-degree rotation: renormalise (b, c, d) as nifti_clib does
    const double n = std::sqrt(b * b + c * c + d * d);
    if (n > 0) b /= n, c /= n, d /= n;
  }
  const double r[3][3] = {
      {a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)},
      {2 * (b * c + a * d), a * a + c * c - b * b - d * d, 2 * (c * d - a * b)},
      {2 * (b * d - a * c), 2 * (c * d + a * b), a * a + d * d - c * c - b * b}};
  const double qfac = h.pixdim[0] < 0 ? -1.0 : 1.0;
  const double qoffset[3] = {h.qoffset_x, h.qoffset_y, h.qoffset_z};

  TransformDifference diff;
  for (int j = 0; j < 3; ++j) {
    const double sign = j == 2 ? qfac : 1.0;
    double length = 0;
    for (int i = 0; i < 3; ++i) length += h.srow[i][j] * h.srow[i][j];
    length = std::sqrt(length);
    for (int i = 0; i < 3; ++i) {
      const double s_unit = length > 0 ? h.srow[i][j] / length : 0.0;
      diff.rotation = std::max(diff.rotation, std::abs(s_unit - sign * r[i][j]));
    }
    const double spacing = std::abs(h.pixdim[j + 1]);
    if (spacing > 0) diff.scale = std::max(diff.scale, std::abs(length - spacing) / spacing);
  }
  for (int i = 0; i < 3; ++i) diff.offset_mm = std::max(diff.offset_mm, std::abs(h.srow[i][3] - qoffset[i]));
  return diff;
}

}  // namespace medsynth::nifti_detail
