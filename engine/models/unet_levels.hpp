// How the UNet options turn into blocks, level by level: the attention of a
// level (none, self-attention, or a cross-attention transformer with
// with_conditioning), the down path and the middle block. Shared by the UNet
// (diffusion_model_unet.cpp) and ControlNetMaisi (controlnet_maisi.cpp),
// whose trunks MONAI builds with the same get_down_block/get_mid_block.
#pragma once

#include <torch/nn/modules/container/modulelist.h>

#include <cstddef>
#include <cstdint>

#include "config/diffusion_spec.hpp"
#include "models/diffusion_unet_blocks.hpp"

namespace medsynth {

// The attention of `level` (MONAI: attention_levels[level] and not / and with_conditioning).
// middle: the middle block's, which always attends with the last level's heads.
UnetAttentionSpec unet_attention_spec(const DiffusionUnetOptions& options, std::size_t level, bool middle = false);

UnetBlockShape unet_block_shape(const DiffusionUnetOptions& options, std::int64_t in, std::int64_t out, std::int64_t temb_channels);

// The down blocks, level 0 first: each level's resnets (+ attention), a downsampler but at the last.
torch::nn::ModuleList make_unet_down_blocks(const DiffusionUnetOptions& options, std::int64_t temb_channels);

DiffusionMidBlock make_unet_mid_block(const DiffusionUnetOptions& options, std::int64_t temb_channels);

// Runs the down blocks from h; returns the last h and fills `skips` with
// MONAI's down_block_res_samples (h itself first, then each block's outputs).
at::Tensor run_unet_down_blocks(const torch::nn::ModuleList& down_blocks, at::Tensor h, const at::Tensor& emb,
                                const at::Tensor& context, std::vector<at::Tensor>& skips);

}  // namespace medsynth
