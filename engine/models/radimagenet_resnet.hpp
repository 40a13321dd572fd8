// The 2D ResNet of RadImageNet (Mei et al. 2022), the feature network of
// NV-Generate's 2.5D FID, in the layout its PyTorch weights have (converted
// from the Keras release: `RadImageNet-ResNet50_notop.pth`, loaded by
// torch.hub "Warvito/radimagenet-models"): Keras' ResNet50 v1, so every
// convolution has a bias, a bottleneck strides in its first 1x1 convolution
// (torchvision's v1.5 strides in the 3x3), and batch norms use eps 1.001e-5.
// conv1 7x7/2 -> bn1 -> relu -> maxpool 3/2 -> layer1..layer4; no classifier
// ("notop"). Widths and blocks per layer come from the weights, so a narrow
// test network loads the same way. Built by models/resnet_feature_weights.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/pimpl.h>

#include <vector>

namespace medsynth {

struct RadImageNetResNetOptions {
  int input_channels = 3;
  int stem_width = 64;                        // conv1's output channels
  std::vector<int> widths{64, 128, 256, 512};  // each layer's bottleneck width (x4 out)
  std::vector<int> blocks{3, 4, 6, 3};        // ResNet-50
};

class RadImageNetResNetImpl : public torch::nn::Module {
 public:
  explicit RadImageNetResNetImpl(const RadImageNetResNetOptions& options);
  // x [N, 3, H, W] -> layer4's map [N, 4 * widths[3], H/32, W/32].
  at::Tensor forward(const at::Tensor& x);
  // The map averaged over its spatial axes: [N, 4 * widths[3]] (NV-Generate's spatial_average).
  at::Tensor features(const at::Tensor& x);
  const RadImageNetResNetOptions& options() const { return options_; }

  torch::nn::Conv2d conv1{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr};
  torch::nn::Sequential layer1{nullptr}, layer2{nullptr}, layer3{nullptr}, layer4{nullptr};

 private:
  RadImageNetResNetOptions options_;
};
TORCH_MODULE(RadImageNetResNet);

}  // namespace medsynth
