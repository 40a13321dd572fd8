#include "eval/feature_network.hpp"

#include <ATen/ATen.h>
#include <torch/script.h>

#include <filesystem>

#include "core/error.hpp"

#include "models/resnet_feature_weights.hpp"
#include "weights/torch_archive.hpp"

namespace medsynth {

// One of three: a TorchScript module, a 3D ResNet (MedicalNet) or a 2D
// ResNet (RadImageNet) built from weights.
struct FeatureNetwork::Module {
  torch::jit::script::Module module;
  ResNet3d resnet{nullptr};
  RadImageNetResNet resnet2d{nullptr};
};

FeatureNetwork::FeatureNetwork(const std::string& path, bool trust_torchscript)
    : path_(path), module_(std::make_unique<Module>()) {
  if (!std::filesystem::is_regular_file(path)) throw DataError(path, "feature network: no such file");
  // Weights first, through the restricted reader: a torch.save file is data,
  // and only the globals a state dict needs are let through.
  PickleValue root;
  std::string weights_error;
  try {
    root = read_torch_file(path);
  } catch (const DataError& e) {
    weights_error = e.reason();
  }
  if (weights_error.empty()) {
    // ResNet weights written by torch.save, 3D (MedicalNet) or 2D
    // (RadImageNet) by the rank of conv1's kernel.
    const auto weights = state_dict_of(root, path);
    const auto conv1 = weights.find("conv1.weight");
    if (conv1 != weights.end() && conv1->second.dim() == 4) module_->resnet2d = radimagenet_resnet_from_state_dict(weights, path);
    else module_->resnet = resnet_from_state_dict(weights, path);
    return;
  }
  // A TorchScript file is a program: loading it runs the code its author put
  // in it, with the user's permissions (the audit's 1.4 KB "weights" wrote
  // files of its choosing). Only on the user's explicit word.
  if (!trust_torchscript)
    throw DataError(path, "feature network: not weights the restricted reader accepts (" + weights_error +
                              "). If it is TorchScript, it is a program that runs with your permissions when loaded: "
                              "medsynth loads one only with --trust-torchscript");
  try {
    module_->module = torch::jit::load(path, at::kCPU);
    module_->module.eval();
    torchscript_ = true;
  } catch (const std::exception& e) {
    std::string script_error = e.what();
    script_error = script_error.substr(0, script_error.find('\n'));
    script_error = script_error.substr(0, script_error.find(". "));  // LibTorch appends paragraphs of advice
    throw DataError(path, "feature network: neither torch.save weights (" + weights_error + ") nor TorchScript (" + script_error + ")");
  }
}

FeatureNetwork::~FeatureNetwork() = default;

at::Tensor FeatureNetwork::features(const at::Tensor& input) const {
  at::NoGradGuard no_grad;
  if (module_->resnet) {
    if (input.dim() != 5)
      throw RuntimeError(path_ + ": a 3D ResNet (MedicalNet weights) takes volumes [N, C, D, H, W], not " + c10::str(input.sizes()) +
                         ": use --feature-mode 3d, or a 2D network (RadImageNet weights, TorchScript) for 2.5d");
    return module_->resnet->features(input.to(at::kFloat).contiguous()).to(at::kDouble).cpu();
  }
  if (module_->resnet2d) {
    if (input.dim() != 4)
      throw RuntimeError(path_ + ": a 2D ResNet (RadImageNet weights) takes slices [N, 3, H, W], not " + c10::str(input.sizes()) +
                         ": use --feature-mode 2.5d, or a 3D network for 3d");
    return module_->resnet2d->features(input.to(at::kFloat).contiguous()).to(at::kDouble).cpu();
  }
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
