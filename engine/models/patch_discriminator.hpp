// 3D PatchGAN discriminator (MONAI PatchDiscriminator, pix2pixHD): one logit
// per overlapping patch, trained against the autoencoder when
// loss.adv_weight > 0, and against the VQ-GAN (train/patch_gan_training).
// With spatial_dims 2 it judges 2D slices [B, C, H, W] (the VQ-GAN's slice
// discriminator): the same layers with depth-1 kernels, so its conv weights
// are [O, I, 1, k, k] where MONAI's 2D network has [O, I, k, k]. Child names mirror MONAI:
// `initial_conv.conv.{weight,bias}`, `0.conv.weight`, `0.adn.N.{weight,bias}`,
// ..., `final_conv.conv.{weight,bias}`.
//
// Normalisation: MONAI defaults to BATCH, which depends on the batch
// composition and is ill-posed at MAISI's batch size 1 per rank. We offer
// instance norm without affine parameters (what MAISI's training configures,
// norm="INSTANCE", so its checkpoints map) and affine group norm.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

#include "config/patch_discriminator_options.hpp"
#include "models/convolution.hpp"

namespace medsynth {

// Conv3d, then MONAI's "adn" block in N-D-A order (no dropout: MONAI's is 0).
class DiscriminatorLayerImpl : public torch::nn::Module {
 public:
  DiscriminatorLayerImpl(const PatchDiscriminatorOptions& o, std::int64_t in_channels, std::int64_t out_channels,
                         std::int64_t stride, bool with_norm);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Conv3d conv{nullptr};
  torch::nn::Sequential adn{nullptr};
};
TORCH_MODULE(DiscriminatorLayer);

class PatchDiscriminatorImpl : public torch::nn::Module {
 public:
  explicit PatchDiscriminatorImpl(const PatchDiscriminatorOptions& options);

  // [B, in_channels, D, H, W] -> logits [B, out_channels, d, h, w] (no activation);
  // without D for spatial_dims 2.
  at::Tensor forward(const at::Tensor& x);
  // Every layer's output, the logits last (MONAI's return value; for
  // feature-matching losses).
  std::vector<at::Tensor> features(const at::Tensor& x);

  const PatchDiscriminatorOptions& options() const { return options_; }

  DiscriminatorLayer initial_conv{nullptr};    // stride 2, no norm
  std::vector<DiscriminatorLayer> layers;      // registered as "0", "1", ...
  Convolution final_conv{nullptr};             // to out_channels, no activation

 private:
  void check_input(const at::Tensor& x) const;
  PatchDiscriminatorOptions options_;
};
TORCH_MODULE(PatchDiscriminator);

}  // namespace medsynth
