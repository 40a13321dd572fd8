// The options of MONAI's ControlNetMaisi (models/controlnet_maisi.hpp):
// the trunk fields it shares with the diffusion UNet (names as in
// DiffusionUnetOptions; MONAI's `num_channels` is `channels`) and its
// conditioning embedding. A plain struct with its validation, in
// medsynth_config beside the UNet's options so that it is checked without
// LibTorch. Not a job-file section yet.
#pragma once

#include <string>
#include <vector>

#include "config/diffusion_spec.hpp"

namespace medsynth {

struct ControlNetMaisiOptions {
  int spatial_dims = 3;
  int in_channels = 4;
  std::vector<int> channels{64, 128, 256, 512};  // MAISI's sizes, as DiffusionUnetOptions
  std::vector<int> num_res_blocks{2, 2, 2, 2};
  std::vector<bool> attention_levels{false, false, true, true};
  std::vector<int> num_head_channels{0, 0, 32, 32};
  int norm_num_groups = 32;
  double norm_eps = 1e-6;
  bool resblock_updown = false;
  bool with_conditioning = false;
  int transformer_num_layers = 1;
  int cross_attention_dim = 0;
  int num_class_embeds = 0;
  bool upcast_attention = false;
  bool include_fc = false;                   // MONAI ControlNetMaisi's default
  bool use_combined_linear = false;
  bool use_flash_attention = false;          // accepted; same math
  bool use_checkpointing = true;             // accepted; MONAI recomputes activations to save memory, the outputs are the same
  // The conditioning embedding: conv_in to [0], then per step a 3x3x3 conv and a stride-2 one to the next width.
  int conditioning_embedding_in_channels = 1;
  std::vector<int> conditioning_embedding_num_channels{16, 32, 96, 256};

  // The trunk fields of a UNet (to pair a ControlNet with the UNet it steers);
  // conditioning embedding fields keep their defaults.
  static ControlNetMaisiOptions from_unet(const DiffusionUnetOptions& unet);
  // The trunk as UNet options (no region or spacing inputs, out_channels unused).
  DiffusionUnetOptions trunk() const;
  // Throws ConfigError naming `prefix`.field.
  void validate(const std::string& prefix) const;
  bool operator==(const ControlNetMaisiOptions&) const = default;
};

}  // namespace medsynth
