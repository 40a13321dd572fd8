#include "eval/feature_network.hpp"

#include <ATen/ATen.h>
#include <torch/script.h>

#include <filesystem>

#include "core/error.hpp"

namespace medsynth {

struct FeatureNetwork::Module {
  torch::jit::script::Module module;
};

FeatureNetwork::FeatureNetwork(const std::string& path) : path_(path), module_(std::make_unique<Module>()) {
  if (!std::filesystem::is_regular_file(path)) throw DataError(path, "feature network: no such file");
  try {
    module_->module = torch::jit::load(path, at::kCPU);
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw DataError(path, "feature network: not a TorchScript file (torch.jit.save): " + what.substr(0, what.find('\n')));
  }
  module_->module.eval();
}

FeatureNetwork::~FeatureNetwork() = default;

at::Tensor FeatureNetwork::features(const at::Tensor& input) const {
  at::NoGradGuard no_grad;
  at::Tensor out;
  try {
    auto result = module_->module.forward({input.to(at::kFloat).contiguous()});
    out = result.isTuple() ? result.toTuple()->elements().at(0).toTensor() : result.toTensor();
  } catch (const std::exception& e) {
    std::string what = e.what();
    throw RuntimeError(path_ + ": the feature network refused an input of shape " + c10::str(input.sizes()) + ": " +
                       what.substr(0, what.find('\n')));
  }
  if (out.dim() < 2 || out.size(0) != input.size(0))
    throw RuntimeError(path_ + ": the feature network returned shape " + c10::str(out.sizes()) + " for " + std::to_string(input.size(0)) +
                       " inputs (expected [N, F, ...])");
  if (out.dim() > 2) out = out.flatten(2).mean(2);  // spatial average
  return out.to(at::kDouble).cpu();
}

}  // namespace medsynth
