#include "weights/state_dict_loading.hpp"

#include <ATen/ATen.h>

#include <vector>

#include "core/error.hpp"

namespace medsynth {

namespace {

std::string first_names(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 3) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

}  // namespace

void load_state_dict_strict(torch::nn::Module& module, const std::map<std::string, at::Tensor>& weights, const std::string& path) {
  std::map<std::string, at::Tensor> targets;
  for (const auto& p : module.named_parameters(true)) targets[p.key()] = p.value();
  for (const auto& b : module.named_buffers(true)) targets[b.key()] = b.value();
  std::vector<std::string> missing, unexpected, misshaped;
  for (const auto& [name, t] : targets) {
    auto it = weights.find(name);
    if (it == weights.end()) missing.push_back(name);
    else if (it->second.sizes() != t.sizes())
      misshaped.push_back(name + " " + c10::str(it->second.sizes()) + " (the network's: " + c10::str(t.sizes()) + ")");
    else if (!at::isFloatingType(it->second.scalar_type()))
      misshaped.push_back(name + " is " + c10::toString(it->second.scalar_type()));
  }
  for (const auto& [name, t] : weights)
    if (!targets.count(name)) unexpected.push_back(name);
  if (!missing.empty() || !unexpected.empty() || !misshaped.empty()) {
    std::string why = "does not match the network of the configuration:";
    if (!missing.empty()) why += " missing " + first_names(missing) + ";";
    if (!unexpected.empty()) why += " unexpected " + first_names(unexpected) + ";";
    if (!misshaped.empty()) why += " mis-shaped " + first_names(misshaped) + ";";
    throw DataError(path, why + " nothing was loaded");
  }
  at::NoGradGuard no_grad;
  for (auto& [name, t] : targets) t.copy_(weights.at(name));  // float16/bfloat16 files widen exactly
}

}  // namespace medsynth
