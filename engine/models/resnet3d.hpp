// The 3D ResNet of the survival workflow (seed 004: MONAI's resnet50 on CT
// volumes), in MONAI's layout and parameter names: conv1 (7^3) -> bn1 -> relu
// -> maxpool -> layer1..layer4 -> global average pool -> fc. Depths 10/18/34
// use BasicBlock, 50 uses Bottleneck (expansion 4); shortcut type B (1x1 conv
// + norm when the shape changes). The head is one risk score (fc with one
// output); clinical covariates, when given, add a linear term (Cox model).
// Built by the survival task (engine/train/survival_task).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

#include "config/resnet3d_options.hpp"

namespace medsynth {

class ResNet3dImpl : public torch::nn::Module {
 public:
  explicit ResNet3dImpl(const ResNet3dOptions& options);
  // x [B, C, D, H, W], covariates [B, num_covariates] (undefined when none) -> risk [B].
  at::Tensor forward(const at::Tensor& x, const at::Tensor& covariates = {});
  at::Tensor features(const at::Tensor& x);  // [B, F] after the global pool
  at::Tensor feature_map(const at::Tensor& x);  // layer4's output before the pool (perceptual losses)
  const ResNet3dOptions& options() const { return options_; }

  torch::nn::Conv3d conv1{nullptr};
  torch::nn::AnyModule bn1;
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};
  torch::nn::Linear fc{nullptr};
  torch::nn::Linear covariate_fc{nullptr};

 private:
  ResNet3dOptions options_;
};
TORCH_MODULE(ResNet3d);

}  // namespace medsynth
