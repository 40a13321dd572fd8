#include "state/ema_weights.hpp"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/error.hpp"

namespace medsynth {

EmaWeights::EmaWeights(const std::vector<NamedModule>& modules, double decay) : decay_(decay) {
  if (!enabled()) return;
  at::NoGradGuard no_grad;
  for (const auto& m : modules)
    for (const auto& p : m.module->named_parameters(true)) {
      names_.push_back("ema." + m.name + "." + p.key());
      live_.push_back(p.value());
      average_.push_back(p.value().detach().clone());
    }
}

void EmaWeights::update(int step) {
  if (!enabled()) return;
  at::NoGradGuard no_grad;
  const double d = std::min(decay_, (1.0 + step) / (10.0 + step));
  for (std::size_t i = 0; i < live_.size(); ++i) average_[i].mul_(d).add_(live_[i].detach(), 1.0 - d);
}

void EmaWeights::swap_in() {
  at::NoGradGuard no_grad;
  backup_.clear();
  for (std::size_t i = 0; i < live_.size(); ++i) {
    backup_.push_back(live_[i].detach().clone());
    live_[i].copy_(average_[i]);
  }
}

void EmaWeights::swap_out() {
  at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < live_.size() && i < backup_.size(); ++i) live_[i].copy_(backup_[i]);
  backup_.clear();
}

std::map<std::string, at::Tensor> EmaWeights::tensors() const {
  std::map<std::string, at::Tensor> out;
  for (std::size_t i = 0; i < names_.size(); ++i) out[names_[i]] = average_[i];
  return out;
}

void EmaWeights::restore(const std::map<std::string, at::Tensor>& file_tensors, const std::string& path) {
  if (!enabled()) return;
  at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    auto it = file_tensors.find(names_[i]);
    if (it == file_tensors.end())
      throw UsageError(path + ": checkpoint has no " + names_[i] + " (written without training.ema_decay?)");
    average_[i].copy_(it->second);
  }
}

}  // namespace medsynth
