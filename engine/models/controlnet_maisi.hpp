// MONAI's ControlNetMaisi: a copy of the diffusion UNet's encoder (conv_in,
// time/class embedding, down_blocks, middle_block) that also reads a
// full-resolution condition (MAISI: the segmentation mask) through
// `controlnet_cond_embedding`, and returns, through zero-initialised 1x1
// convolutions (`controlnet_down_blocks`, `controlnet_mid_block`), one
// residual per UNet skip and one for the middle block, scaled by
// conditioning_scale. DiffusionModelUNet adds them (UnetConditioning).
// Names mirror MONAI's state_dict so NVIDIA's released ControlNet weights load.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>

#include <vector>

#include "config/controlnet_spec.hpp"
#include "models/diffusion_unet_blocks.hpp"
#include "models/unet_conditioning.hpp"
#include "models/convolution.hpp"

namespace medsynth {

// MONAI's ControlNetConditioningEmbedding: SiLU after conv_in and after each
// block (pairs of a 3x3x3 conv and a stride-2 one to the next width), then a
// zero-initialised conv_out to the UNet's first width.
class ControlNetConditioningEmbeddingImpl : public torch::nn::Module {
 public:
  ControlNetConditioningEmbeddingImpl(std::int64_t in_channels, std::int64_t out_channels, const std::vector<int>& channels);
  at::Tensor forward(const at::Tensor& condition);

  Convolution conv_in{nullptr};
  torch::nn::ModuleList blocks{nullptr};
  Convolution conv_out{nullptr};
};
TORCH_MODULE(ControlNetConditioningEmbedding);

struct ControlNetResiduals {
  std::vector<at::Tensor> down_block_residuals;  // one per UNet skip, conv_in's first
  at::Tensor mid_block_residual;
};

class ControlNetMaisiImpl : public torch::nn::Module {
 public:
  explicit ControlNetMaisiImpl(const ControlNetMaisiOptions& options);
  // x, timesteps as the UNet's; condition [B, conditioning_embedding_in_channels,
  // D*f, H*f, W*f] with f = 2^(len(conditioning_embedding_num_channels)-1);
  // `embedding` uses only class_labels.
  ControlNetResiduals forward(const at::Tensor& x, const at::Tensor& timesteps, const at::Tensor& condition,
                              double conditioning_scale = 1.0, const at::Tensor& context = {},
                              const UnetEmbeddingInputs& embedding = {});
  const ControlNetMaisiOptions& options() const { return options_; }

  Convolution conv_in{nullptr};
  UnetEmbedding embedding;  // time_embed, class_embedding
  ControlNetConditioningEmbedding controlnet_cond_embedding{nullptr};
  torch::nn::ModuleList down_blocks{nullptr};
  // MONAI keeps the first zero conv as a bare nn.Conv3d ("controlnet_down_blocks.0.weight"),
  // the others wrapped ("controlnet_down_blocks.1.conv.weight").
  torch::nn::ModuleList controlnet_down_blocks{nullptr};
  DiffusionMidBlock middle_block{nullptr};
  Convolution controlnet_mid_block{nullptr};

 private:
  ControlNetMaisiOptions options_;
};
TORCH_MODULE(ControlNetMaisi);

}  // namespace medsynth
