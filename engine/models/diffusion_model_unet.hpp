// The latent diffusion network: a 3D UNet in the shape of MONAI's
// DiffusionModelUNetMaisi (sinusoidal timestep embedding -> time_embed MLP,
// optional class / region-index / spacing embeddings, residual blocks with
// GroupNorm, self- or cross-attention at the configured levels, skip
// connections, zero-initialised output conv). With the default options it is
// MONAI's plain DiffusionModelUNet. Parameter names mirror MONAI's state_dict,
// so NVIDIA's released MAISI weights load by name (docs/latent-diffusion.md,
// docs/maisi-networks-unet.md). A ControlNetMaisi (controlnet_maisi.hpp) adds
// its residuals through UnetConditioning.
// Built by the LDM task (diffusion/ldm_task.cpp) and the latent sampler.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>

#include <vector>

#include "config/diffusion_spec.hpp"
#include "models/diffusion_unet_blocks.hpp"
#include "models/unet_conditioning.hpp"

namespace medsynth {

// Everything forward() takes beside x and the timesteps (MONAI's keyword arguments).
struct UnetConditioning {
  UnetEmbeddingInputs embedding;  // class labels, region indices, spacing
  at::Tensor context;             // [B, tokens, cross_attention_dim] with with_conditioning
  // A ControlNet's outputs: one residual per skip (down_block_res_samples,
  // conv_in's output first) and one for the middle block's output.
  std::vector<at::Tensor> down_block_additional_residuals;
  at::Tensor mid_block_additional_residual;
};

class DiffusionModelUNetImpl : public torch::nn::Module {
 public:
  explicit DiffusionModelUNetImpl(const DiffusionUnetOptions& options);
  // x [B, C, D, H, W] (each spatial size divisible by 2^(levels-1)),
  // timesteps [B] in [0, T], spacing [B, 3] (mm x 100, as MAISI feeds it)
  // when include_spacing_input.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& timesteps, const at::Tensor& spacing = {});
  at::Tensor forward(const at::Tensor& x, const at::Tensor& timesteps, const UnetConditioning& conditioning);
  const DiffusionUnetOptions& options() const { return options_; }

  Convolution conv_in{nullptr};
  UnetEmbedding embedding;  // time_embed, class_embedding, *_region_index_layer, spacing_layer
  torch::nn::ModuleList down_blocks{nullptr};
  DiffusionMidBlock middle_block{nullptr};
  torch::nn::ModuleList up_blocks{nullptr};
  torch::nn::Sequential out{nullptr};

 private:
  at::Tensor run_up_blocks(at::Tensor h, const at::Tensor& emb, const at::Tensor& context, std::vector<at::Tensor>& skips);

  DiffusionUnetOptions options_;
};
TORCH_MODULE(DiffusionModelUNet);

}  // namespace medsynth
