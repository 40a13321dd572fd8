// The conditioning vector of the diffusion UNet and the ControlNet, as MONAI's
// DiffusionModelUNetMaisi builds it: the sinusoidal timestep embedding through
// the `time_embed` MLP, plus the modality `class_embedding` (added), then the
// outputs of `top_region_index_layer`, `bottom_region_index_layer` and
// `spacing_layer` concatenated in that order. The layers are registered on the
// owning network under those top-level names so MAISI's state dicts load.
// Used by diffusion_model_unet.cpp and controlnet_maisi.cpp.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>

#include <cstdint>

#include "config/diffusion_spec.hpp"

namespace medsynth {

// Sinusoidal embedding of (possibly fractional) timesteps [B] -> [B, dim]:
// cos then sin halves, frequencies exp(-ln(10000) i / (dim/2)) (Ho et al.).
at::Tensor timestep_embedding(const at::Tensor& timesteps, std::int64_t dim);

// The per-sample inputs beside x and the timesteps; each needed exactly when
// the matching option is set.
struct UnetEmbeddingInputs {
  at::Tensor class_labels;         // [B] integers in [0, num_class_embeds) (MAISI: modality)
  at::Tensor top_region_index;     // [B, 4] (MAISI: one-hot body region of the top slice)
  at::Tensor bottom_region_index;  // [B, 4]
  at::Tensor spacing;              // [B, 3] (mm x 100, as MAISI feeds it)
};

struct UnetEmbedding {
  torch::nn::Sequential time_embed{nullptr};
  torch::nn::Embedding class_embedding{nullptr};
  torch::nn::Sequential top_region_index_layer{nullptr};
  torch::nn::Sequential bottom_region_index_layer{nullptr};
  torch::nn::Sequential spacing_layer{nullptr};

  // Registers the layers on `owner` in MONAI's order. with_inputs false: only
  // time and class (MONAI's ControlNet has no region or spacing inputs).
  void register_on(torch::nn::Module& owner, const DiffusionUnetOptions& options, bool with_inputs);
  // Width of the vector every resnet block receives (time_embed's times the concatenated parts).
  std::int64_t channels() const { return channels_; }
  // The vector [B, channels()] in x's dtype; throws UsageError naming a missing input.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& timesteps, const UnetEmbeddingInputs& inputs);

 private:
  std::int64_t base_channels_ = 0;  // channels[0], the sinusoid's width
  std::int64_t channels_ = 0;
};

}  // namespace medsynth
