// Options of the 3D KL autoencoder (autoencoder_kl.hpp): MONAI AutoencoderKL's
// arguments under MONAI's names, plus the log-variance clamp of the stable KL.
// Built from the job's AutoencoderSpec by the autoencoder task; validate()
// runs in the AutoencoderKL constructor, so a bad option fails before any
// tensor is allocated. No LibTorch here: the checks are plain arithmetic.
#pragma once

#include <string>
#include <vector>

#include "config/job_spec.hpp"

namespace medsynth {

struct AutoencoderKLOptions {
  int spatial_dims = 3;               // only 3 is built
  int in_channels = 1;
  int out_channels = 1;
  int latent_channels = 4;
  std::vector<int> num_channels{64, 128, 256};  // len - 1 downsamples
  std::vector<int> num_res_blocks{2, 2, 2};
  int norm_num_groups = 32;
  double norm_eps = 1e-6;
  std::vector<bool> attention_levels{false, false, false};
  bool with_encoder_nonlocal_attn = false;
  bool with_decoder_nonlocal_attn = false;
  bool use_checkpointing = false;     // accepted for MAISI compatibility; has no effect
  bool use_convtranspose = false;
  // encode() clamps the log-variance to this range before anything
  // exponentiates it (MONAI: -30, 20), so sigma and the KL stay finite.
  double logvar_min = -30.0;
  double logvar_max = 20.0;
  // MAISI's AutoencoderKlMaisi (monai.apps.generation.maisi), the network of
  // NVIDIA's released weights: the same layers as AutoencoderKL under
  // deeper names (`...conv.conv.weight`), trilinear upsampling, group norms
  // computed in float32, and convolutions run in num_splits pieces along
  // dim_split (0-2 = D, H, W) to bound memory at full size.
  bool maisi = false;
  int num_splits = 1;          // MAISI's default is 16; NV-Generate's configs use 2-8
  int dim_split = 0;
  bool norm_float16 = false;   // norm outputs rounded to float16 (maisi only)
  // Attention blocks: an output projection (MONAI's include_fc) and one qkv
  // projection instead of three (use_combined_linear).
  bool include_fc = true;
  bool use_combined_linear = false;

  static AutoencoderKLOptions from_spec(const AutoencoderSpec& spec);
  // Also takes the clamp from loss.logvar_clamp.
  static AutoencoderKLOptions from_spec(const AutoencoderSpec& spec, const LossSpec& loss);

  // Throws UsageError naming the first bad field by its job path
  // ("model.autoencoder.num_channels[1]: ...", "loss.logvar_clamp: ...").
  void validate() const;

  void validate_maisi() const;

  // Spatial down-scaling per axis (2^(levels - 1)); inputs must be multiples of it.
  int compression() const;
};

}  // namespace medsynth
