// Loading pretrained weights into part of a network: every tensor whose name
// the network has is copied (its shape must be the network's), the network's
// other tensors keep their initial values, and the file's other tensors are
// ignored; the report says which, and why (pretrained_layouts.hpp). Used by
// `train --init-weights FILE.pt|.pth` (train/init_weights.hpp), where a
// published backbone (MedicalNet) starts a network with a head of its own.
// Unlike load_state_dict_strict (state_dict_loading.hpp) a name on one side
// only is no error; a shape or kind that differs is.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <vector>

namespace medsynth {

struct TensorGroup {
  std::string why;                    // empty for the loaded tensors
  std::vector<std::string> names;     // sorted
  std::vector<std::string> prefixes;  // the same names said briefly ("layer1.*"; name_prefixes.hpp)
};

struct PartialLoadReport {
  std::string layout;                     // the recognised layout's name, or ""
  TensorGroup loaded;                     // network names
  std::vector<TensorGroup> left_initial;  // network tensors the file lacks, one group per reason
  std::vector<TensorGroup> ignored;       // file tensors the network lacks, one group per reason
};

// `targets`: the network's parameters and buffers by name; `weights`: the
// file's state dict. All or nothing: DataError naming `path` when a shared
// name differs in shape (the name and both shapes) or in kind (a float file
// tensor widens or narrows into a float network tensor; any other change of
// dtype is refused), or when no name is shared at all.
PartialLoadReport load_state_dict_partial(const std::map<std::string, at::Tensor>& targets,
                                          const std::map<std::string, at::Tensor>& weights, const std::string& path);

}  // namespace medsynth
