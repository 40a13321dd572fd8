// ByteSource: stdio for plain files, zlib's gz* API for gzip (which inflates
// in its own fixed-size window and verifies the CRC and length trailer).
#include "volume/nifti_byte_source.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace medsynth::nifti_detail {
namespace {

constexpr std::size_t k_scratch_bytes = 64 * 1024;

gzFile as_gz(void* p) { return static_cast<gzFile>(p); }

}  // namespace

ByteSource::ByteSource(const std::string& path) : path_(path) {
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  if (ec) throw DataError(path, "cannot open: " + ec.message());

  unsigned char magic[2] = {0, 0};
  std::FILE* probe = std::fopen(path.c_str(), "rb");
  if (!probe) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
  const std::size_t got = std::fread(magic, 1, 2, probe);
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (!gzip) {
    file_ = probe;
    std::rewind(file_);
    return;
  }
  std::fclose(probe);
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(gz, 128 * 1024);
  gz_ = gz;
}

ByteSource::~ByteSource() {
  if (file_) std::fclose(file_);
  if (gz_) gzclose(as_gz(gz_));
}

void ByteSource::check_gz_error() {
  int code = Z_OK;
  const char* message = gzerror(as_gz(gz_), &code);
  if (code == Z_OK || code == Z_STREAM_END) return;
  std::string detail = message ? message : "unknown zlib error";
  if (code == Z_BUF_ERROR) detail += "; the .gz file is cut short";
  throw DataError(path_, "corrupt gzip stream (" + detail + ")");
}

std::size_t ByteSource::read(unsigned char* buffer, std::size_t n) {
  std::size_t total = 0;
  if (file_) {
    total = std::fread(buffer, 1, n, file_);
    if (total < n && std::ferror(file_)) throw DataError(path_, std::string("read error: ") + std::strerror(errno));
  } else {
    while (total < n) {
      const auto chunk = static_cast<unsigned>(std::min<std::size_t>(n - total, INT_MAX / 2));
      const int got = gzread(as_gz(gz_), buffer + total, chunk);
      if (got < 0) check_gz_error();
      if (got <= 0) break;
      total += static_cast<std::size_t>(got);
    }
    // gzread hands over what it inflated before reporting a damaged or cut
    // stream; a short read must therefore be checked for an error too.
    if (total < n) check_gz_error();
  }
  position_ += total;
  return total;
}

std::uint64_t ByteSource::skip(std::uint64_t n) {
  if (file_) {
    const std::uint64_t left = file_size_ > position_ ? file_size_ - position_ : 0;
    const std::uint64_t step = std::min(n, left);
    if (fseeko(file_, static_cast<off_t>(position_ + step), SEEK_SET) != 0)
      throw DataError(path_, std::string("seek error: ") + std::strerror(errno));
    position_ += step;
    return step;
  }
  unsigned char scratch[k_scratch_bytes];
  std::uint64_t skipped = 0;
  while (skipped < n) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n - skipped, sizeof scratch));
    const std::size_t got = read(scratch, want);
    skipped += got;
    if (got < want) break;
  }
  return skipped;
}

}  // namespace medsynth::nifti_detail
