#include "volume/nifti_extension.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/error.hpp"
#include "volume/atomic_file.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/written_nifti_check.hpp"

namespace medsynth {
namespace {

constexpr std::size_t k_header_bytes = 348;
constexpr std::int32_t k_comment_code = 6;

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Extensions end at vox_offset: a provenance is a few KB, and a header that
// puts vox_offset further is not one we read (nor a gzip bomb's way in).
constexpr std::size_t k_max_extension_bytes = 16u << 20;

// The first `limit` (decompressed) bytes of the file, or all of it when it
// is shorter: gzread reads plain files as they are. Reading stops at the
// limit, so a .nii.gz that inflates without end costs at most `limit` bytes
// (issue 37: a 2 MiB file ran regenerate to bad_alloc at 2.4 GB).
std::string read_head(const std::string& path, std::size_t limit, bool* compressed) {
  GzFile in(gzopen(path.c_str(), "rb"));
  if (!in) throw DataError(path, "cannot open");
  *compressed = gzdirect(in.get()) == 0;
  std::string bytes;
  char buffer[1 << 16];
  while (bytes.size() < limit) {
    const auto want = static_cast<unsigned>(std::min<std::size_t>(sizeof buffer, limit - bytes.size()));
    const int n = gzread(in.get(), buffer, want);
    if (n <= 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  int err = 0;
  gzerror(in.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) throw DataError(path, "damaged gzip data");
  return bytes;
}

// Where the voxel data starts, from the header alone.
std::size_t vox_offset_of(const std::string& path) {
  bool compressed = false;
  const std::string header = read_head(path, k_header_bytes + 4, &compressed);
  if (header.size() < k_header_bytes + 4) throw DataError(path, "not a little-endian NIfTI-1 file (shorter than its header)");
  float offset = 0;
  std::memcpy(&offset, header.data() + 108, 4);
  if (!(offset >= 352.0f) || offset > static_cast<float>(k_max_extension_bytes))
    throw DataError(path, "vox_offset " + std::to_string(offset) + " is outside 352.." + std::to_string(k_max_extension_bytes) +
                              " (the header extensions medsynth reads)");
  return static_cast<std::size_t>(offset);
}

std::int32_t int32_at(const std::string& b, std::size_t at) {
  std::int32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

float float_at(const std::string& b, std::size_t at) {
  float v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// Checks the header and returns vox_offset. Little-endian files only (what we write).
std::size_t checked_vox_offset(const std::string& b, const std::string& path) {
  if (b.size() < k_header_bytes + 4 || int32_at(b, 0) != 348) throw DataError(path, "not a little-endian NIfTI-1 file (sizeof_hdr)");
  if (std::memcmp(b.data() + 344, "n+1\0", 4) != 0) throw DataError(path, "not a single-file NIfTI-1 (magic is not n+1)");
  const float offset = float_at(b, 108);
  if (!(offset >= 352.0f) || offset > static_cast<float>(b.size())) throw DataError(path, "vox_offset outside the file");
  return static_cast<std::size_t>(offset);
}

}  // namespace

void add_nifti_comment_extension(const std::string& path, const std::string& text) {
  // The guard bounds the whole file first: what it inflates to is at most its
  // header's declared data plus k_gzip_slack_bytes, under the read caps.
  const NiftiHeaderInfo info = check_nifti_file(path, VolumeReadOptions{.reject_non_finite = false});
  if (info.version != 1 || info.byte_swapped)
    throw DataError(path, "not a little-endian NIfTI-1 file (medsynth adds extensions to the files it writes)");
  bool compressed = false;
  const std::string b = read_head(path, info.vox_offset + info.data_bytes_found + k_gzip_slack_bytes, &compressed);
  const std::size_t offset = checked_vox_offset(b, path);
  // Existing extensions (if the extender flag is set) end at vox_offset; ours follows them.
  const bool had_extensions = b[348] != 0;
  const std::size_t extensions_end = had_extensions ? offset : 352;
  std::string extension(8, '\0');
  extension += text;
  extension.resize((extension.size() + 15) / 16 * 16, '\0');
  const std::int32_t esize = static_cast<std::int32_t>(extension.size());
  std::memcpy(extension.data(), &esize, 4);
  std::memcpy(extension.data() + 4, &k_comment_code, 4);

  std::string out = b.substr(0, extensions_end);
  out[348] = 1;  // extender: extensions follow
  out += extension;
  const float new_offset = static_cast<float>(out.size());
  std::memcpy(out.data() + 108, &new_offset, 4);
  out.append(b, offset, std::string::npos);

  const auto write = [&](const std::string& temp) {
    if (compressed) {
      GzFile gz(gzopen(temp.c_str(), "wb6"));
      if (!gz || gzwrite(gz.get(), out.data(), static_cast<unsigned>(out.size())) != static_cast<int>(out.size()))
        throw RuntimeError("the gzip data could not be written");
      if (gzclose(gz.release()) != Z_OK) throw RuntimeError("the gzip stream could not be finished");
    } else {
      std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(temp.c_str(), "wb"), &std::fclose);
      if (!f || std::fwrite(out.data(), 1, out.size(), f.get()) != out.size() || std::fflush(f.get()) != 0)
        throw RuntimeError("the data could not be written");
    }
  };
  write_file_atomically(path, compressed ? ".nii.gz" : ".nii", write, check_written_nifti);
}

std::vector<std::string> read_nifti_comment_extensions(const std::string& path) {
  // medsynth writes little-endian NIfTI-1 only, so a big-endian or NIfTI-2
  // file from another tool has no provenance of ours; that is no error (issue
  // 38: the viewer said "provenance not readable" for a valid foreign file).
  bool compressed = false;
  {
    const std::string header = read_head(path, 4, &compressed);
    if (header.size() == 4) {
      const auto size = static_cast<std::uint32_t>(int32_at(header, 0));
      if (size == 540 || __builtin_bswap32(size) == 348 || __builtin_bswap32(size) == 540) return {};
    }
  }
  // The extensions lie between the header and vox_offset: only those bytes are read.
  const std::string b = read_head(path, vox_offset_of(path), &compressed);
  const std::size_t offset = checked_vox_offset(b, path);
  std::vector<std::string> texts;
  if (b[348] == 0) return texts;
  for (std::size_t at = 352; at < offset;) {
    if (at + 8 > offset) throw DataError(path, "extension list cut short before vox_offset");
    const std::int32_t esize = int32_at(b, at), ecode = int32_at(b, at + 4);
    if (esize < 16 || esize % 16 != 0 || at + static_cast<std::size_t>(esize) > offset)
      throw DataError(path, "extension of size " + std::to_string(esize) + " at byte " + std::to_string(at) + " is malformed");
    if (ecode == k_comment_code) {
      std::string text = b.substr(at + 8, static_cast<std::size_t>(esize) - 8);
      text.erase(text.find_last_not_of('\0') + 1);
      texts.push_back(text);
    }
    at += static_cast<std::size_t>(esize);
  }
  return texts;
}

}  // namespace medsynth
