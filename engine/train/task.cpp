#include "train/task.hpp"

namespace medsynth {

OptimizerGroup optimizer_group(const std::string& group, const std::string& prefix, torch::nn::Module& module) {
  OptimizerGroup g;
  g.name = group;
  for (const auto& item : module.named_parameters(true)) {
    g.parameters.push_back(item.value());
    g.parameter_names.push_back(prefix + "." + item.key());
  }
  return g;
}

}  // namespace medsynth
