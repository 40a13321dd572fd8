// check_nifti_file: the checks run in the order a reader depends on them
// (size and magic, then dims, then what the dims imply), so each message
// names the first thing that is really wrong. See the header for the policy.
#include "volume/nifti_header_guard.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "volume/nifti_byte_source.hpp"
#include "volume/nifti_header_fields.hpp"
#include "volume/volume_size_checks.hpp"

namespace medsynth {
namespace {

using nifti_detail::RawHeader;

struct DatatypeInfo {
  int code;
  int bitpix;
  const char* name;
  bool scalar;
};

// NIFTI_TYPE_* codes (nifti1.h). Non-scalar ones are known, so they get a
// clearer message than "unknown", but are refused: the engine reads scalars.
constexpr DatatypeInfo k_datatypes[] = {
    {2, 8, "uint8", true},       {4, 16, "int16", true},        {8, 32, "int32", true},
    {16, 32, "float32", true},   {64, 64, "float64", true},     {256, 8, "int8", true},
    {512, 16, "uint16", true},   {768, 32, "uint32", true},     {1024, 64, "int64", true},
    {1280, 64, "uint64", true},  {1, 1, "binary", false},       {32, 64, "complex64", false},
    {128, 24, "rgb24", false},   {1536, 128, "float128", false}, {1792, 128, "complex128", false},
    {2048, 256, "complex256", false}, {2304, 32, "rgba32", false}};

const DatatypeInfo* find_datatype(int code) {
  for (const auto& d : k_datatypes)
    if (d.code == code) return &d;
  return nullptr;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

std::string num(double v) {
  std::ostringstream out;
  out.precision(10);
  out << v;
  return out.str();
}

std::vector<std::int64_t> used_dims(const RawHeader& h) {
  return std::vector<std::int64_t>(h.dim.begin() + 1, h.dim.begin() + 1 + h.dim[0]);
}

std::string dims_text(const RawHeader& h) { return medsynth::dims_text(used_dims(h)); }

// Bounded read buffer for the voxel data (a multiple of 8 bytes).
constexpr std::size_t k_chunk_bytes = 256 * 1024;

class Guard {
 public:
  Guard(const std::string& path, const VolumeReadOptions& options, bool channel_axis)
      : path_(path), options_(options), channel_axis_(channel_axis) {}

  NiftiHeaderInfo run();

 private:
  [[noreturn]] void fail(const std::string& reason) const { throw DataError(path_, reason); }
  void check_name();
  RawHeader read_header(nifti_detail::ByteSource& src);
  void check_magic(const RawHeader& h);
  void check_dims(const RawHeader& h);
  void check_shape(const RawHeader& h);
  void check_datatype(const RawHeader& h);
  void check_bytes(const RawHeader& h);
  void check_spacing_and_scaling(const RawHeader& h);
  void check_vox_offset(const RawHeader& h, const nifti_detail::ByteSource& src);
  void check_transforms(const RawHeader& h);
  void check_extensions(nifti_detail::ByteSource& src);
  void check_data_length(nifti_detail::ByteSource& src);

  std::string path_;
  VolumeReadOptions options_;
  bool channel_axis_ = false;  // dim[4] holds channels (check_nifti_channel_file)
  NiftiHeaderInfo info_;
  int header_size_ = 0;
};

void Guard::check_name() {
  std::error_code ec;
  const auto status = std::filesystem::status(path_, ec);
  if (ec || !std::filesystem::exists(status)) fail("no such file");
  if (std::filesystem::is_directory(status)) fail("is a folder, not a NIfTI file");
  if (!std::filesystem::is_regular_file(status)) fail("not a regular file");
  if (ends_with(path_, ".hdr") || ends_with(path_, ".img") || ends_with(path_, ".hdr.gz") ||
      ends_with(path_, ".img.gz"))
    fail("Analyze/NIfTI .hdr/.img pairs are not supported; convert the pair to a single .nii or .nii.gz");
}

RawHeader Guard::read_header(nifti_detail::ByteSource& src) {
  if (src.compressed() && !ends_with(path_, ".gz"))
    fail("is gzip-compressed but not named .gz (ITK would read the compressed bytes as voxels); rename it to .nii.gz");
  unsigned char bytes[nifti_detail::k_nifti2_header_size];
  const std::size_t got = src.read(bytes, 4);
  if (got == 0) fail("not a NIfTI file (empty file)");
  if (got < 4) fail("not a NIfTI file (only " + std::to_string(got) + " bytes)");
  bool swapped = false;
  header_size_ = nifti_detail::header_size_from_prefix(bytes, swapped);
  if (header_size_ == 0)
    fail("not a NIfTI file (sizeof_hdr is " + std::to_string(nifti_detail::raw_sizeof_hdr(bytes)) +
         ", expected 348 or 540 in either byte order)");
  const std::size_t rest = src.read(bytes + 4, static_cast<std::size_t>(header_size_ - 4));
  if (4 + rest < static_cast<std::size_t>(header_size_))
    fail("not a NIfTI file (only " + std::to_string(4 + rest) + " bytes, shorter than its " +
         std::to_string(header_size_) + "-byte header)");
  return nifti_detail::decode_header(bytes, header_size_, swapped);
}

void Guard::check_magic(const RawHeader& h) {
  const std::string prefix = h.magic.substr(0, 4);
  const std::string single = h.version == 1 ? std::string("n+1\0", 4) : std::string("n+2\0", 4);
  const std::string pair = h.version == 1 ? std::string("ni1\0", 4) : std::string("ni2\0", 4);
  if (prefix == pair)
    fail("is the header of a .hdr/.img pair (magic \"" + nifti_detail::printable_magic(prefix) +
         "\"), which is not supported; convert it to a single .nii or .nii.gz");
  if (prefix != single)
    fail("not a NIfTI file (bad magic \"" + nifti_detail::printable_magic(h.magic) + "\", expected \"" +
         nifti_detail::printable_magic(single) + "\")");
  if (h.version == 2) {
    // NIfTI-2's magic ends in "\r\n\032\n" (as PNG's does) to expose text-mode
    // transfers; all zeros is tolerated, as nibabel does.
    const std::string tail = h.magic.substr(4);
    if (tail != std::string("\r\n\032\n", 4) && tail != std::string(4, '\0'))
      fail("corrupted NIfTI-2 signature (magic \"" + nifti_detail::printable_magic(h.magic) +
           "\"): the file was probably transferred in text mode");
  }
}

void Guard::check_dims(const RawHeader& h) {
  if (h.dim[0] < 1 || h.dim[0] > 7) fail("dim[0] is " + std::to_string(h.dim[0]) + ", must be 1..7");
  for (int i = 1; i <= h.dim[0]; ++i)
    if (h.dim[i] < 1) fail("dim[" + std::to_string(i) + "] is " + std::to_string(h.dim[i]) + ", must be >= 1");
  // The count comes before the shape: an absurd size is the finding that
  // matters most, whatever else is wrong with the header.
  const std::uint64_t voxels = checked_voxel_count(path_, used_dims(h), options_);
  info_.voxel_count = voxels;
}

void Guard::check_shape(const RawHeader& h) {
  if (h.dim[0] < 3)
    fail("has " + std::to_string(h.dim[0]) + " dimension" + (h.dim[0] == 1 ? "" : "s") +
         " (" + dims_text(h) + "); only 3D volumes are read");
  const int first_extra = channel_axis_ ? 5 : 4;
  for (int i = first_extra; i <= h.dim[0]; ++i)
    if (h.dim[i] > 1)
      fail("is a " + std::to_string(h.dim[0]) + "D image (" + dims_text(h) + ", dim[" + std::to_string(i) +
           "] = " + std::to_string(h.dim[i]) + "); only " +
           (channel_axis_ ? "3D volumes with channels on the 4th axis" : "3D volumes") + " are read");
  info_.ndim = static_cast<int>(h.dim[0]);
  if (channel_axis_ && h.dim[0] >= 4) info_.channels = h.dim[4];
  for (int i = 0; i < 3; ++i) info_.size[i] = h.dim[i + 1];
}

void Guard::check_datatype(const RawHeader& h) {
  const DatatypeInfo* type = find_datatype(h.datatype);
  if (!type) fail("unknown datatype " + std::to_string(h.datatype));
  if (h.bitpix != type->bitpix)
    fail("bitpix " + std::to_string(h.bitpix) + " does not match datatype " + std::to_string(h.datatype) + " (" +
         type->name + ", " + std::to_string(type->bitpix) + " bits)");
  if (!type->scalar)
    fail("datatype " + std::to_string(h.datatype) + " (" + type->name + ") is not a scalar type; only scalar volumes are read");
  info_.datatype = h.datatype;
  info_.bitpix = h.bitpix;
}

void Guard::check_bytes(const RawHeader& h) {
  info_.data_bytes = checked_data_bytes(path_, info_.voxel_count, static_cast<std::uint64_t>(h.bitpix / 8), options_);
}

void Guard::check_spacing_and_scaling(const RawHeader& h) {
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 1; i <= 3; ++i) {
    const double p = h.pixdim[i];
    if (!std::isfinite(p) || p <= 0)
      fail("pixdim[" + std::to_string(i) + "] (" + axes[i - 1] + " spacing) is " + num(p) +
           ", must be a finite number > 0");
    info_.spacing[i - 1] = p;
  }
  if (!std::isfinite(h.scl_slope)) fail("scl_slope is " + num(h.scl_slope) + ", must be finite");
  if (!std::isfinite(h.scl_inter)) fail("scl_inter is " + num(h.scl_inter) + ", must be finite");
}

void Guard::check_vox_offset(const RawHeader& h, const nifti_detail::ByteSource& src) {
  const double v = h.vox_offset;
  if (std::isnan(v)) fail("vox_offset is NaN");
  if (!std::isfinite(v)) fail("vox_offset is " + num(v));
  if (v < 0) fail("vox_offset is " + num(v) + ", negative");
  if (v != std::floor(v)) fail("vox_offset " + num(v) + " is not a whole number of bytes");
  const double min_offset = header_size_ + 4;  // the header, then the 4-byte extender
  if (v < min_offset)
    fail("vox_offset " + num(v) + " points inside the header (must be >= " + num(min_offset) + ")");
  // Caps the bytes between header and data too, so that a .nii.gz claiming
  // a huge offset cannot make the guard inflate without end.
  if (v - min_offset > static_cast<double>(options_.max_bytes))
    fail("vox_offset " + num(v) + " leaves more than " + std::to_string(options_.max_bytes) +
         " bytes between header and data, over the cap");
  info_.vox_offset = static_cast<std::uint64_t>(v);
  if (!src.compressed() && info_.vox_offset >= src.file_size())
    fail("vox_offset " + num(v) + " is past the end of the data (the file holds " + std::to_string(src.file_size()) +
         " bytes)");
}

void Guard::check_transforms(const RawHeader& h) {
  info_.qform_code = h.qform_code;
  info_.sform_code = h.sform_code;
  // Values past this are no image of a body (1000 km); near FLT_MAX they make
  // ITK 5.2's NIfTI reader loop forever (found by fuzzing).
  constexpr double k_limit = 1e9;
  auto check = [&](double v, const std::string& which, int code) {
    if (!std::isfinite(v)) fail(which + " (" + which + "_code " + std::to_string(code) + ") holds a non-finite value");
    if (std::abs(v) > k_limit)
      fail(which + " holds " + num(v) + ", beyond the plausible limit of " + num(k_limit) + " mm");
  };
  if (h.qform_code > 0)
    for (double q : {h.quatern_b, h.quatern_c, h.quatern_d, h.qoffset_x, h.qoffset_y, h.qoffset_z})
      check(q, "qform", h.qform_code);
  if (h.sform_code > 0)
    for (const auto& row : h.srow)
      for (double v : row) check(v, "sform", h.sform_code);
  if (h.qform_code > 0 && h.sform_code > 0) {
    const auto d = nifti_detail::compare_qform_sform(h);
    if (d.rotation > 1e-3 || d.scale > 1e-3 || d.offset_mm > 0.1) {
      info_.warnings.push_back(path_ + ": qform and sform disagree (axis directions differ by up to " +
                               num(d.rotation) + ", spacing by " + num(d.scale * 100) + "%, origin by " +
                               num(d.offset_mm) + " mm); readers may place this volume differently");
    }
  }
}

void Guard::check_extensions(nifti_detail::ByteSource& src) {
  unsigned char extender[4] = {0, 0, 0, 0};
  if (src.read(extender, 4) < 4)
    fail("vox_offset " + std::to_string(info_.vox_offset) + " is past the end of the data (the file ends inside the header)");
  if (extender[0] == 0) return;
  // Each extension: int32 esize (a multiple of 16, counting these 8 bytes),
  // int32 ecode, then esize - 8 bytes. Fewer than 16 bytes left before the data
  // cannot hold one, and 8 zero bytes mark padding: both end the list, as in
  // nifti_clib.
  while (info_.vox_offset - src.position() >= 16) {
    const std::uint64_t remain = info_.vox_offset - src.position();
    unsigned char head[8];
    if (src.read(head, 8) < 8) fail("extension " + std::to_string(info_.extension_count + 1) + " is cut off by the end of the file");
    std::int32_t esize = 0;
    std::int32_t ecode = 0;
    std::memcpy(&esize, head, 4);
    std::memcpy(&ecode, head + 4, 4);
    if (info_.byte_swapped) {
      esize = static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(esize)));
      ecode = static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(ecode)));
    }
    if (esize == 0 && ecode == 0) break;
    const std::string which = "extension " + std::to_string(info_.extension_count + 1);
    if (esize < 16 || esize % 16 != 0)
      fail(which + " has esize " + std::to_string(esize) + ", not a positive multiple of 16");
    if (static_cast<std::uint64_t>(esize) > remain)
      fail(which + " has esize " + std::to_string(esize) + ", larger than the " + std::to_string(remain) +
           " bytes left before vox_offset " + std::to_string(info_.vox_offset));
    if (src.skip(static_cast<std::uint64_t>(esize) - 8) < static_cast<std::uint64_t>(esize) - 8)
      fail(which + " is cut off by the end of the file");
    ++info_.extension_count;
  }
}

// Counts NaN/Inf among whole float32/float64 values in a chunk (the chunks
// are multiples of 8 bytes, so no value is split between two).
std::uint64_t count_non_finite(const unsigned char* bytes, std::size_t n, int datatype, bool swapped) {
  std::uint64_t bad = 0;
  const std::size_t width = datatype == 16 ? 4 : 8;
  unsigned char tmp[8];
  for (std::size_t at = 0; at + width <= n; at += width) {
    std::memcpy(tmp, bytes + at, width);
    if (swapped) std::reverse(tmp, tmp + width);
    double value = 0;
    if (width == 4) {
      float f;
      std::memcpy(&f, tmp, 4);
      value = f;
    } else {
      std::memcpy(&value, tmp, 8);
    }
    if (!std::isfinite(value)) ++bad;
  }
  return bad;
}

void Guard::check_data_length(nifti_detail::ByteSource& src) {
  const std::uint64_t to_data = info_.vox_offset - src.position();
  if (src.skip(to_data) < to_data)
    fail("vox_offset " + std::to_string(info_.vox_offset) + " is past the end of the data (the file holds " +
         std::to_string(src.position()) + " bytes" + (src.compressed() ? " once inflated)" : ")"));
  const std::uint64_t want = info_.data_bytes;
  if (!src.compressed()) {
    const std::uint64_t have = src.file_size() - info_.vox_offset;
    if (have < want)
      fail("truncated: holds " + std::to_string(have) + " of " + std::to_string(want) + " bytes of voxel data");
    info_.data_bytes_found = have;
  }
  // Float data is read once here because niftilib (inside ITK) silently turns
  // NaN/Inf into 0: after ITK they can no longer be seen. A .nii.gz is read
  // anyway, to count its length; a plain integer .nii is not read at all.
  const bool floats = info_.datatype == 16 || info_.datatype == 64;
  if (src.compressed() || floats) {
    static_assert(k_chunk_bytes % 8 == 0);
    std::vector<unsigned char> chunk(k_chunk_bytes);
    std::uint64_t have = 0;
    while (have < want) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), want - have));
      const std::size_t got = src.read(chunk.data(), n);
      if (floats) info_.non_finite_voxels += count_non_finite(chunk.data(), got, info_.datatype, info_.byte_swapped);
      have += got;
      if (got < n) break;
    }
    if (have < want)
      fail("truncated: holds " + std::to_string(have) + " of " + std::to_string(want) + " bytes of voxel data");
  }
  if (src.compressed()) {
    // Count what follows the data, never store it: one byte past the slack is
    // enough to know the stream is not what the header says (a gzip bomb stops here).
    const std::uint64_t extra = src.skip(k_gzip_slack_bytes + 1);
    if (extra > k_gzip_slack_bytes)
      fail("inflates beyond its header: more than " + std::to_string(want + k_gzip_slack_bytes) +
           " bytes of data where the header declares " + std::to_string(want) + " (stopped at that cap)");
    info_.data_bytes_found = want + extra;
  }
  if (info_.non_finite_voxels > 0) {
    const std::string what = "contains " + std::to_string(info_.non_finite_voxels) + " non-finite voxels (NaN or Inf)";
    if (options_.reject_non_finite) fail(what);
    info_.warnings.push_back(path_ + ": " + what + "; ITK reads them as 0");
  }
}

NiftiHeaderInfo Guard::run() {
  check_name();
  nifti_detail::ByteSource src(path_);
  const RawHeader h = read_header(src);
  info_.version = h.version;
  info_.byte_swapped = h.swapped;
  info_.compressed = src.compressed();
  check_magic(h);
  check_dims(h);
  check_shape(h);
  check_datatype(h);
  check_bytes(h);
  check_spacing_and_scaling(h);
  check_vox_offset(h, src);
  check_transforms(h);
  check_extensions(src);
  check_data_length(src);
  return info_;
}

}  // namespace

NiftiHeaderInfo check_nifti_file(const std::string& path, const VolumeReadOptions& options) {
  return Guard(path, options, false).run();
}

NiftiHeaderInfo check_nifti_channel_file(const std::string& path, const VolumeReadOptions& options) {
  return Guard(path, options, true).run();
}

std::string nifti_datatype_name(int datatype) {
  const DatatypeInfo* type = find_datatype(datatype);
  return type ? type->name : "unknown";
}

}  // namespace medsynth
