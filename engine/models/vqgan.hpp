// The 3D VQ-GAN generator of the patch-based workflow (seed 002): the KL
// autoencoder's convolutional encoder and decoder (autoencoder_coders.hpp,
// MONAI layout) around a vector-quantised bottleneck instead of a Gaussian
// one: encoder -> pre_quant_conv (1x1) -> VectorQuantizer -> post_quant_conv
// (1x1) -> decoder. The discriminator is the shared 3D PatchGAN
// (patch_discriminator.hpp). Built by the VQ-GAN task (engine/train/vqgan_task).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "models/autoencoder_coders.hpp"
#include "config/autoencoder_kl_options.hpp"
#include "models/convolution.hpp"
#include "models/vector_quantizer.hpp"

namespace medsynth {

struct VqganOutput {
  at::Tensor reconstruction;  // [B, out_channels, D, H, W]
  QuantizerOutput quantizer;
};

class VqganImpl : public torch::nn::Module {
 public:
  // coder.latent_channels is set to quantizer.embedding_dim.
  VqganImpl(AutoencoderKLOptions coder, const VectorQuantizerOptions& quantizer);
  VqganOutput forward(const at::Tensor& x);
  at::Tensor reconstruct(const at::Tensor& x);  // forward's reconstruction (eval: no codebook updates)
  // A latent diffusion's view of the network (medicaldiffusion trains its DDPM
  // on encode(quantize=False) and decodes with quantize=True): the codes before
  // quantisation, and an image from codes, each snapped to its nearest
  // codebook entry first (a sampled latent is never exactly a code).
  at::Tensor encode_codes(const at::Tensor& x);
  at::Tensor decode_codes(const at::Tensor& z);
  int compression() const { return coder_.compression(); }

  AutoencoderEncoder encoder{nullptr};
  Convolution pre_quant_conv{nullptr};
  VectorQuantizer quantizer{nullptr};
  Convolution post_quant_conv{nullptr};
  AutoencoderDecoder decoder{nullptr};

 private:
  AutoencoderKLOptions coder_;
};
TORCH_MODULE(Vqgan);

}  // namespace medsynth
