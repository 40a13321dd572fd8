// The KL autoencoder's encoder and decoder (MONAI autoencoderkl `Encoder` /
// `Decoder`): each one flat list of blocks named `blocks.0`, `blocks.1`, ...
// in MONAI's order, so block indices in parameter names match MONAI's.
// Built by AutoencoderKL (autoencoder_kl.hpp) from validated options.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include "config/autoencoder_kl_options.hpp"

namespace medsynth {

// [B, in_channels, D, H, W] -> [B, latent_channels, D/f, H/f, W/f], f = 2^(levels-1).
class AutoencoderEncoderImpl : public torch::nn::Module {
 public:
  explicit AutoencoderEncoderImpl(const AutoencoderKLOptions& options);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Sequential blocks{nullptr};
};
TORCH_MODULE(AutoencoderEncoder);

// [B, latent_channels, d, h, w] -> [B, out_channels, d*f, h*f, w*f].
class AutoencoderDecoderImpl : public torch::nn::Module {
 public:
  explicit AutoencoderDecoderImpl(const AutoencoderKLOptions& options);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Sequential blocks{nullptr};
};
TORCH_MODULE(AutoencoderDecoder);

}  // namespace medsynth
