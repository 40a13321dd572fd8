// Reads files written by PyTorch's torch.save without Python: the zip format
// (torch >= 1.6) and the legacy stream of pickles (older torch, e.g. MedicalNet
// weights). Used to import pretrained weights (NVIDIA MAISI, MedicalNet) into
// our own safetensors checkpoints.
//
// The pickle inside is read by a restricted machine, like torch.load(
// weights_only=True): only containers, numbers, strings and tensors come out;
// any other global (os.system, a model class) is refused before anything is
// built, so a hostile file gives a DataError and runs nothing. LibTorch's own
// torch::pickle_load is not used: it fails on state dicts (the `_metadata`
// attribute of their OrderedDict) and has no whitelist. docs/maisi.md has the
// formats, the whitelist and the limits.
//
// Thread-safe (no shared state). Every failure is a DataError naming the file.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace medsynth {

// One unpickled value. Dict keeps the file's order and may have any value as key.
struct PickleValue {
  struct None {};
  struct Bytes {
    std::string data;
  };
  struct List {
    std::vector<PickleValue> items;
  };
  struct Tuple {
    std::vector<PickleValue> items;
  };
  struct Dict {
    std::vector<std::pair<PickleValue, PickleValue>> items;
  };
  // std::string holds Python str as UTF-8; at::Tensor is always on the CPU.
  using Variant = std::variant<None, bool, std::int64_t, double, std::string, Bytes, List, Tuple, Dict, at::Tensor>;

  Variant value;

  template <class T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }
  // The value under a string key when this is a dict (the last such entry,
  // as in Python), else nullptr.
  const PickleValue* find(std::string_view key) const;
  // "dict", "tensor", ... for error messages.
  const char* kind_name() const;
};

// Reads a torch.save file. Throws DataError(path, reason) when the file is
// missing, not a torch.save file, truncated, big-endian, refers to a global
// outside the whitelist, or breaks a limit (nesting depth, pickle size, memo
// size, a tensor reaching outside its storage).
PickleValue read_torch_file(const std::string& path);

// The model's tensors: the dict under the first of unet_state_dict,
// controlnet_state_dict, state_dict, model that holds one, else the top level.
// A `module.` prefix on every name (DataParallel) is dropped. Throws
// DataError(path, ...) when no tensor is found.
std::map<std::string, at::Tensor> state_dict_of(const PickleValue& root, const std::string& path);

// A NaN or infinite weight makes every output NaN (issue 50 item 4: such a
// file trained, rolled back five times and ended "training diverged" naming no
// file). DataError naming `path` and the first such tensor. state_dict_of
// applies it to every foreign file; --init-weights to our own safetensors too.
void refuse_non_finite_tensors(const std::map<std::string, at::Tensor>& tensors, const std::string& path);

// A weight that is a view repeating its own elements (a stride of 0 on an
// axis longer than 1, torch's expand(), or strides that make elements meet;
// the test is PyTorch's: sorted by stride, each axis steps past the span of
// those inside it) names more numbers than the file holds: a 20 KB file of such views gave a
// 2.3 GiB perceptual network (issue 50 item 5). No saved network's weight is
// one. DataError naming `path` and the first such tensor; state_dict_of
// applies it before anything reads a tensor's values.
void refuse_overlapping_tensors(const std::map<std::string, at::Tensor>& tensors, const std::string& path);

// The elements the file's own storages hold, each storage counted once
// however many tensors view it: what a network loaded from these weights can
// at most be made of.
double stored_elements(const std::map<std::string, at::Tensor>& tensors);

// Numbers stored beside the weights (scale_factor, epoch, ...): top-level bool,
// int and float entries, and one-element 0-d tensors when the weights sit
// under one of the keys above (a bare state dict's 0-d tensors are weights).
std::map<std::string, double> scalar_extras_of(const PickleValue& root);

}  // namespace medsynth
