// A 3D convolution held one level down, under the child name "conv", the way
// MONAI's `Convolution(conv_only=True)` wraps its nn.Conv3d. Used by every
// model in engine/models whose MONAI counterpart has such a wrapper, so that a
// MONAI state_dict key like `encoder.blocks.0.conv.weight` or
// `quant_conv_mu.conv.weight` lands on the same name in named_parameters().
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

namespace medsynth {

struct ConvolutionOptions {
  std::int64_t in_channels = 1;
  std::int64_t out_channels = 1;
  std::int64_t kernel_size = 3;
  std::int64_t stride = 1;
  std::int64_t padding = 1;
  bool bias = true;
};

class ConvolutionImpl : public torch::nn::Module {
 public:
  explicit ConvolutionImpl(const ConvolutionOptions& options);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Conv3d conv{nullptr};
};
TORCH_MODULE(Convolution);

// Shorthands for the two shapes MONAI's generative models use everywhere.
Convolution conv3x3(std::int64_t in_channels, std::int64_t out_channels);  // stride 1, pad 1
Convolution conv1x1(std::int64_t in_channels, std::int64_t out_channels);  // stride 1, pad 0

}  // namespace medsynth
