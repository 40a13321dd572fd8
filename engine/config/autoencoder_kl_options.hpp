// Options of the 3D KL autoencoder (models/autoencoder_kl.hpp): MONAI
// AutoencoderKL's arguments under MONAI's names, plus the log-variance clamp
// of the stable KL. The job holds them as model.autoencoder (job_spec.hpp),
// so the file's fields and the network's options are one struct; the clamp
// is loss.logvar_clamp in the job and joins them in from_spec(). Torch-free,
// in medsynth_config, so the console and the job validation check them too:
// problems() is the one set of rules, run by validate_job() and, for networks
// built in code, by the AutoencoderKL constructor through validate().
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

struct LossSpec;

struct AutoencoderKLOptions {
  int spatial_dims = 3;               // only 3 is built
  int in_channels = 1;
  int out_channels = 1;
  int latent_channels = 4;            // MAISI: 4
  std::vector<int> num_channels{64, 128, 256};  // MAISI; len - 1 downsamples -> 4x per axis
  std::vector<int> num_res_blocks{2, 2, 2};
  int norm_num_groups = 32;
  double norm_eps = 1e-6;
  std::vector<bool> attention_levels{false, false, false};
  bool with_encoder_nonlocal_attn = false;
  bool with_decoder_nonlocal_attn = false;
  bool use_checkpointing = false;     // accepted for MAISI compatibility; has no effect
  bool use_convtranspose = false;
  // MAISI's AutoencoderKlMaisi (monai.apps.generation.maisi), the network of
  // NVIDIA's released weights: the same layers as AutoencoderKL under
  // deeper names (`...conv.conv.weight`), trilinear upsampling, group norms
  // computed in float32, and convolutions run in num_splits pieces along
  // dim_split (0-2 = D, H, W) to bound memory at full size (docs/maisi.md).
  bool maisi = false;
  int num_splits = 1;          // MAISI's default is 16; NV-Generate's configs use 2-8
  int dim_split = 0;
  bool norm_float16 = false;   // norm outputs rounded to float16 (maisi only)
  // Attention blocks: an output projection (MONAI's include_fc) and one qkv
  // projection instead of three (use_combined_linear).
  bool include_fc = true;
  bool use_combined_linear = false;
  // encode() clamps the log-variance to this range before anything
  // exponentiates it (MONAI: -30, 20), so sigma and the KL stay finite. Not
  // model.autoencoder fields: from_spec() copies loss.logvar_clamp here.
  double logvar_min = -30.0;
  double logvar_max = 20.0;

  // The job's network: model.autoencoder with loss.logvar_clamp.
  static AutoencoderKLOptions from_spec(const AutoencoderKLOptions& autoencoder, const LossSpec& loss);

  // Every problem, each named by its job path ("model.autoencoder.num_channels",
  // "loss.logvar_clamp"): the ranges of the field rows (job_fields.cpp), then
  // the rules between fields.
  std::vector<FieldError> problems() const;
  // Throws UsageError listing problems().
  void validate() const;

  // Spatial down-scaling per axis (2^(levels - 1)); inputs must be multiples of it.
  int compression() const;

  bool operator==(const AutoencoderKLOptions&) const = default;
};

}  // namespace medsynth
