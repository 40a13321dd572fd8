// Named tensors on disk in the safetensors layout (8-byte little-endian header
// length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__":
// {string: string}}, then raw little-endian data). Chosen over LibTorch's
// pickle archives because any tool (Python `safetensors`, Rust, our GUI) can
// read it by name without unpickling objects (RELIABILITY.md 27), and a
// MONAI state_dict converted once maps name for name. Written by hand: the
// format is a page long and no Debian package provides a C++ implementation.
//
// Called by checkpoint_store.cpp. Writes are atomic: temp file in the same
// folder, fsync, rename, fsync of the folder.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>

namespace medsynth {

struct TensorFile {
  std::map<std::string, at::Tensor> tensors;      // CPU, contiguous
  std::map<std::string, std::string> metadata;    // "__metadata__"
};

// Throws RuntimeError naming the path on any I/O failure; never leaves a
// partial file under `path`.
void write_tensor_file(const std::string& path, const TensorFile& file);

// Throws DataError naming the path when the file is missing, truncated, or its
// header is malformed (offsets out of range or overlapping, unknown dtype,
// shape/byte-count mismatch, header larger than 100 MB).
TensorFile read_tensor_file(const std::string& path);

// Test hook: called after each chunk written to the temporary file with the
// bytes written so far (used to kill a writer half-way through a checkpoint).
void set_tensor_file_write_hook(std::function<void(std::size_t)> hook);

}  // namespace medsynth
