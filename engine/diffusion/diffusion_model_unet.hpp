// The latent diffusion network: a 3D UNet in the shape of MONAI's
// DiffusionModelUNet as MAISI configures it (sinusoidal timestep embedding ->
// time_embed MLP, residual blocks with GroupNorm, self-attention at the coarse
// levels, skip connections, zero-initialised output conv). Parameter names
// mirror MONAI's state_dict, so converted MAISI weights load by name
// (docs/latent-diffusion.md). Optional conditioning on voxel spacing follows
// MAISI's DiffusionModelUNetMaisi: a `spacing_layer` MLP whose output is
// concatenated to the time embedding.
// Built by the LDM task (train/ldm_task.cpp) and the latent sampler.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>

#include <string>
#include <vector>

#include "config/diffusion_spec.hpp"
#include "diffusion/diffusion_unet_blocks.hpp"

namespace medsynth {

// Sinusoidal embedding of (possibly fractional) timesteps [B] -> [B, dim]:
// cos then sin halves, frequencies exp(-ln(10000) i / (dim/2)) (Ho et al.).
at::Tensor timestep_embedding(const at::Tensor& timesteps, std::int64_t dim);

class DiffusionModelUNetImpl : public torch::nn::Module {
 public:
  explicit DiffusionModelUNetImpl(const DiffusionUnetOptions& options);
  // x [B, C, D, H, W] (each spatial size divisible by 2^(levels-1)),
  // timesteps [B] in [0, T], spacing [B, 3] (mm x 100, as MAISI feeds it)
  // when include_spacing_input.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& timesteps, const at::Tensor& spacing = {});
  const DiffusionUnetOptions& options() const { return options_; }

  Convolution conv_in{nullptr};
  torch::nn::Sequential time_embed{nullptr};
  torch::nn::Sequential spacing_layer{nullptr};
  torch::nn::ModuleList down_blocks{nullptr};
  DiffusionMidBlock middle_block{nullptr};
  torch::nn::ModuleList up_blocks{nullptr};
  torch::nn::Sequential out{nullptr};

 private:
  DiffusionUnetOptions options_;
};
TORCH_MODULE(DiffusionModelUNet);

}  // namespace medsynth
