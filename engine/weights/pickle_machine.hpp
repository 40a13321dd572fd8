// The restricted pickle machine behind torch_archive.cpp. It runs one pickle
// (the protocol 2-5 opcodes that torch.save emits) into a graph of values,
// calling nothing but a fixed whitelist of globals, and later turns the graph
// into a PickleValue once the caller can supply the tensors' storages. Two
// steps because the legacy torch format stores the bytes after the pickle.
//
// Internal to engine/train; no state is shared between calls.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weights/torch_archive.hpp"

namespace medsynth::pickle {

// Bounds that keep a hostile file to a clear DataError instead of a crash or
// an exhausted machine. Real state dicts stay far below them.
struct PickleLimits {
  std::size_t max_bytes = std::size_t{64} << 20;  // one pickle
  std::size_t max_values = std::size_t{1} << 22;  // values built while running, and in the result
  std::size_t max_memo = std::size_t{1} << 22;    // memo entries (BINPUT index + 1)
  std::size_t max_depth = 1000;                   // nesting of containers and MARKs
  // Bytes of the result: its values and the text of its strings, counted as
  // built, so that one string the pickle shares N times counts N times (a
  // 1 MiB file reached 2.4 GB that way; issue 37). State dicts need a few MB.
  std::size_t max_expanded_bytes = std::size_t{256} << 20;
  std::size_t max_dims = 64;                      // tensor dimensions
};

// A storage named by a persistent id ('storage', <type>, key, location, numel).
struct StorageRef {
  std::string key;
  at::ScalarType dtype = at::kFloat;
  std::int64_t numel = 0;
};

// Supplies a storage's elements: a contiguous 1-D CPU tensor of ref.dtype with
// ref.numel elements. Called once per key.
using StorageLoader = std::function<at::Tensor(const StorageRef&)>;

struct Graph;

// One pickle that has run to its STOP.
class Unpickled {
 public:
  explicit Unpickled(std::unique_ptr<Graph> graph);
  Unpickled(Unpickled&&) noexcept;
  Unpickled& operator=(Unpickled&&) noexcept;
  ~Unpickled();

  // Offset just after the STOP opcode (where the next pickle of a stream starts).
  std::size_t end() const;
  // The storages the persistent ids named, one per key, in first-use order.
  const std::vector<StorageRef>& storages() const;
  // The result; tensors are views (as_strided) of the storages `load` returns.
  PickleValue value(const StorageLoader& load) const;

 private:
  std::unique_ptr<Graph> graph_;
};

// Runs the pickle that starts at bytes[offset]. Errors are DataError(path,
// where + ": " + reason), with byte offsets counted in `bytes`; `where` names
// the record (e.g. "data.pkl") and may be empty.
Unpickled unpickle(std::string_view bytes, std::size_t offset, const std::string& path, const std::string& where,
                   const PickleLimits& limits = {});

}  // namespace medsynth::pickle
