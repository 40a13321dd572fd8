// Implementation of the NIfTI byte-level test helpers (see nifti_bytes.hpp).
#include "nifti_bytes.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace medsynth::test {

Volume make_test_volume() {
  Volume v = make_volume({5, 4, 3}, {0.75, 1.25, 2.5});
  v.origin = {-12.5, 3.25, 40.0};
  const double a = 0.5, b = 0.3;  // radians
  const double rz[9] = {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1};
  const double rx[9] = {1, 0, 0, 0, std::cos(b), -std::sin(b), 0, std::sin(b), std::cos(b)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += rz[i * 3 + k] * rx[k * 3 + j];
      v.direction[i * 3 + j] = s;
    }
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = static_cast<float>(i) * 1.5f - 20.0f;
  return v;
}

std::string gzip(const std::string& raw) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&zs, raw.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string gunzip(const std::string& compressed) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw std::runtime_error("inflateInit2");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char buf[65536];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) throw std::runtime_error("inflate failed");
    out.append(buf, sizeof buf - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
}

static bool is_gz(const std::filesystem::path& path) { return path.extension() == ".gz"; }

std::string read_nifti_bytes(const std::filesystem::path& path) {
  const std::string bytes = read_bytes(path);
  return is_gz(path) ? gunzip(bytes) : bytes;
}

void write_nifti_bytes(const std::filesystem::path& path, const std::string& bytes) {
  write_bytes(path, is_gz(path) ? gzip(bytes) : bytes);
}

static void swap_at(std::string& bytes, std::size_t offset, std::size_t width) {
  std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
               bytes.begin() + static_cast<std::ptrdiff_t>(offset + width));
}

std::string byte_swap_nifti1_float(const std::string& in) {
  std::string b = in;
  const auto vox_offset = static_cast<std::size_t>(peek<float>(in, nifti1::vox_offset));
  swap_at(b, 0, 4);                                          // sizeof_hdr
  swap_at(b, 32, 4);                                         // extents
  swap_at(b, 36, 2);                                         // session_error
  for (std::size_t o = 40; o < 56; o += 2) swap_at(b, o, 2);  // dim
  for (std::size_t o = 56; o < 68; o += 4) swap_at(b, o, 4);  // intent_p1..3
  for (std::size_t o = 68; o < 76; o += 2) swap_at(b, o, 2);  // intent_code, datatype, bitpix, slice_start
  for (std::size_t o = 76; o < 120; o += 4) swap_at(b, o, 4); // pixdim, vox_offset, scl_slope, scl_inter
  swap_at(b, 120, 2);                                        // slice_end
  for (std::size_t o = 124; o < 148; o += 4) swap_at(b, o, 4); // cal_max .. glmin
  swap_at(b, 252, 2);
  swap_at(b, 254, 2);
  for (std::size_t o = 256; o < 328; o += 4) swap_at(b, o, 4); // quatern, qoffset, srow
  for (std::size_t o = vox_offset; o + 4 <= b.size(); o += 4) swap_at(b, o, 4);
  return b;
}

std::string nifti1_to_nifti2(const std::string& in) {
  const auto vox_offset = static_cast<std::size_t>(peek<float>(in, nifti1::vox_offset));
  std::string h(540, '\0');
  patch<std::int32_t>(h, 0, 540);
  std::memcpy(h.data() + 4, "n+2\0\r\n\032\n", 8);
  patch<std::int16_t>(h, 12, peek<std::int16_t>(in, nifti1::datatype));
  patch<std::int16_t>(h, 14, peek<std::int16_t>(in, nifti1::bitpix));
  for (int i = 0; i < 8; ++i) patch<std::int64_t>(h, 16 + 8 * i, peek<std::int16_t>(in, nifti1::dim + 2 * i));
  for (int i = 0; i < 8; ++i) patch<double>(h, 104 + 8 * i, peek<float>(in, nifti1::pixdim + 4 * i));
  patch<std::int64_t>(h, 168, 544);
  patch<double>(h, 176, peek<float>(in, 112));  // scl_slope
  patch<double>(h, 184, peek<float>(in, 116));  // scl_inter
  patch<std::int32_t>(h, 344, peek<std::int16_t>(in, nifti1::qform_code));
  patch<std::int32_t>(h, 348, peek<std::int16_t>(in, nifti1::sform_code));
  for (int i = 0; i < 6; ++i) patch<double>(h, 352 + 8 * i, peek<float>(in, 256 + 4 * i));   // quatern, qoffset
  for (int i = 0; i < 12; ++i) patch<double>(h, 400 + 8 * i, peek<float>(in, 280 + 4 * i));  // srow
  patch<std::int32_t>(h, 500, static_cast<unsigned char>(in[123]));                           // xyzt_units
  return h + std::string(4, '\0') + in.substr(vox_offset);
}

}  // namespace medsynth::test
