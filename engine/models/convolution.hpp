// MONAI's `Convolution(conv_only=True)`: a 3D convolution (or transposed
// convolution) held one level down, under the child name "conv", the way
// MONAI wraps its nn.Conv3d. Every network here whose MONAI counterpart has
// such a wrapper uses it, so that a MONAI state_dict key like
// `encoder.blocks.0.conv.weight` or `quant_conv_mu.conv.weight` lands on the
// same name in named_parameters(). (One block, one class: SplitConvolution,
// MAISI's pieces-along-an-axis variant, holds one of these as its "conv".)
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
  bool transposed = false;  // ConvTranspose3d, output_padding = stride - 1 (MONAI's default)
  // Kernel 1, stride 1, no padding along depth: a 2D convolution of each
  // [C, 1, H, W] slice (the VQ-GAN's slice discriminator). Not for transposed.
  bool flat_depth = false;
};

// Conv3d options of kernel/stride/padding, or their 2D form over depth-1 slices (flat_depth).
torch::nn::Conv3dOptions conv3d_options(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
                                        std::int64_t stride, std::int64_t padding, bool flat_depth);

// Exactly one of `conv` and `deconv` is set; either is registered as "conv".
class ConvolutionImpl : public torch::nn::Module {
 public:
  explicit ConvolutionImpl(const ConvolutionOptions& options);
  at::Tensor forward(const at::Tensor& x);
  const at::Tensor& weight() const;
  const at::Tensor& bias() const;

  torch::nn::Conv3d conv{nullptr};
  torch::nn::ConvTranspose3d deconv{nullptr};
};
TORCH_MODULE(Convolution);

// Shorthands for the two shapes MONAI's generative models use everywhere.
Convolution conv3x3(std::int64_t in_channels, std::int64_t out_channels);  // stride 1, pad 1
Convolution conv1x1(std::int64_t in_channels, std::int64_t out_channels);  // stride 1, pad 0

}  // namespace medsynth
