// NV-Generate's MAISI networks as our options structs, shared by the MAISI
// benchmarks (memory/time of full-size inference, training-step time against
// MONAI). The numbers are NV-Generate's config_network_rflow.json.
#pragma once

#include "models/diffusion_model_unet.hpp"
#include "config/autoencoder_kl_options.hpp"

namespace medsynth::bench {

// autoencoder_def: AutoencoderKlMaisi 64/128/256, 2 res blocks per level, no
// attention, 4 latent channels. `splits` is num_splits of its convolutions
// (NV-Generate's inference: 4; 1 = unsplit, as in training a 64^3 patch).
inline AutoencoderKLOptions maisi_autoencoder(int splits, bool norm_float16) {
  AutoencoderKLOptions o;
  o.maisi = true;
  o.num_channels = {64, 128, 256};
  o.num_res_blocks = {2, 2, 2};
  o.attention_levels = {false, false, false};
  o.norm_num_groups = 32;
  o.latent_channels = 4;
  o.num_splits = splits;
  o.dim_split = 1;
  o.norm_float16 = norm_float16;
  o.include_fc = false;
  return o;
}

// diffusion_unet_def (rflow-ct): 64/128/256/512, attention at the two deepest
// levels with 32-channel heads, spacing input, 128 class embeddings.
inline DiffusionUnetOptions maisi_unet() {
  DiffusionUnetOptions o;
  o.channels = {64, 128, 256, 512};
  o.num_res_blocks = {2, 2, 2, 2};
  o.attention_levels = {false, false, true, true};
  o.num_head_channels = {0, 0, 32, 32};
  o.include_spacing_input = true;
  o.num_class_embeds = 128;
  o.resblock_updown = true;
  o.include_fc = true;
  return o;
}

}  // namespace medsynth::bench
