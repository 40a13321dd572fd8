// Loading a foreign state dict into one of our modules, all or nothing:
// every parameter and buffer name must be in the file with its shape, and
// every file tensor must be the module's, before anything is copied. Used by
// import-maisi (the released .pt files) and generate --label (the imported
// ControlNet's checkpoint).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <map>
#include <string>

namespace medsynth {

// DataError naming `path` and the first missing, unexpected and mis-shaped
// names when they differ; float16/bfloat16 tensors widen exactly.
void load_state_dict_strict(torch::nn::Module& module, const std::map<std::string, at::Tensor>& weights, const std::string& path);

}  // namespace medsynth
