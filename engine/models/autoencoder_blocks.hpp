// The building blocks of the KL autoencoder (autoencoder_kl.hpp), one class
// per MONAI block of monai.networks.nets.autoencoderkl, with the same child
// names so a MONAI state_dict maps onto named_parameters() name for name:
//   AutoencoderResBlock  = AEKLResBlock  norm1, conv1.conv, norm2, conv2.conv, nin_shortcut.conv
//   AutoencoderDownsample = AEKLDownsample conv.conv (pad (0,1) per axis, then 3^3 stride 2)
//   AutoencoderUpsample  = UpSample       postconv.conv ("nontrainable": nearest x2, then 3^3 conv)
//                                         or deconv (ConvTranspose3d, kernel 2, stride 2)
// Assembled into the encoder and decoder by autoencoder_coders.cpp.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "models/convolution.hpp"

namespace medsynth {

// GroupNorm -> SiLU -> conv3x3, twice, plus the input (through a 1x1 conv
// when the channel count changes).
class AutoencoderResBlockImpl : public torch::nn::Module {
 public:
  AutoencoderResBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t norm_num_groups,
                          double norm_eps);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::GroupNorm norm1{nullptr};
  Convolution conv1{nullptr};
  torch::nn::GroupNorm norm2{nullptr};
  Convolution conv2{nullptr};
  Convolution nin_shortcut{nullptr};  // null when in == out (MONAI: nn.Identity)
};
TORCH_MODULE(AutoencoderResBlock);

// Halves each spatial size (rounding up): the asymmetric (0, 1) padding keeps
// even sizes exact, as in the original LDM code MONAI follows.
class AutoencoderDownsampleImpl : public torch::nn::Module {
 public:
  explicit AutoencoderDownsampleImpl(std::int64_t channels);
  at::Tensor forward(const at::Tensor& x);

  Convolution conv{nullptr};
};
TORCH_MODULE(AutoencoderDownsample);

// Doubles each spatial size.
class AutoencoderUpsampleImpl : public torch::nn::Module {
 public:
  AutoencoderUpsampleImpl(std::int64_t channels, bool use_convtranspose);
  at::Tensor forward(const at::Tensor& x);

  Convolution postconv{nullptr};           // use_convtranspose == false
  torch::nn::ConvTranspose3d deconv{nullptr};  // use_convtranspose == true
};
TORCH_MODULE(AutoencoderUpsample);

}  // namespace medsynth
