// The modules a run trains and its optimizer groups, by the names a checkpoint
// stores them under (training_state.hpp). A task (train/task.hpp) lists them;
// the checkpoint code, the EMA and the trainer read them. Header-only.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>

#include <memory>
#include <string>
#include <vector>

namespace medsynth {

// A module that the checkpoint stores under `name.` + its parameter names.
struct NamedModule {
  std::string name;
  std::shared_ptr<torch::nn::Module> module;
};

// One optimizer group: the modules it updates and whether it runs at a step.
struct OptimizerGroup {
  std::string name;  // "generator", "discriminator"
  std::vector<at::Tensor> parameters;
  std::vector<std::string> parameter_names;  // checkpoint names, same order
  double lr_multiplier = 1.0;
};

}  // namespace medsynth
