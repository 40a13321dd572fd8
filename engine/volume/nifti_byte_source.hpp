// A forward-only byte stream over a .nii or .nii.gz file with a bounded
// buffer, for the NIfTI header guard (nifti_header_guard.cpp). Private to
// medsynth_volume. Whether the file is gzip is decided by its first bytes,
// not its name, so the guard can refuse a name that lies about it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace medsynth::nifti_detail {

class ByteSource {
 public:
  // Throws DataError(path, ...) if the file cannot be opened.
  explicit ByteSource(const std::string& path);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  bool compressed() const { return gz_ != nullptr; }
  // Size on disk (compressed size for a gzip file).
  std::uint64_t file_size() const { return file_size_; }
  // Bytes delivered so far (decompressed for a gzip file).
  std::uint64_t position() const { return position_; }

  // Reads up to n bytes; fewer only at the end of the data. A damaged gzip
  // stream (bad deflate data, bad CRC, cut short) throws DataError.
  std::size_t read(unsigned char* buffer, std::size_t n);
  // Skips up to n bytes through a fixed scratch buffer; returns how many.
  std::uint64_t skip(std::uint64_t n);

 private:
  void check_gz_error();

  std::string path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile, kept opaque so zlib.h stays in the .cpp
  std::uint64_t file_size_ = 0;
  std::uint64_t position_ = 0;
};

}  // namespace medsynth::nifti_detail
