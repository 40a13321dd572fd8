// The job-file options of the latent diffusion components (docs/job-file.md
// "scheduler", "model.diffusion_unet"): plain structs with their validation,
// in medsynth_config so that the console validates them without LibTorch.
// The engine builds the UNet (models/diffusion_model_unet.hpp) and the
// schedulers (schedulers/diffusion_scheduler.hpp) from them.
#pragma once

#include <string>
#include <vector>

namespace medsynth {

// The scheduler's modes, spelled in job files as MONAI spells them
// (config/job_enums.hpp: "ddpm", "scaled_linear_beta", "v_prediction",
// "logit-normal", "non-uniform"). A misspelling is refused where the file is
// read, naming the field; code past the reader never compares strings.
enum class SchedulerKind { rflow, ddpm, ddim, fast_ddpm };  // in the console's order
enum class BetaSchedule { linear_beta, scaled_linear_beta };
enum class PredictionType { epsilon, sample, v_prediction };
enum class TimestepSampling { uniform, logit_normal };
enum class FastDdpmSchedule { uniform, non_uniform };

struct NoiseScheduleOptions {
  int num_train_timesteps = 1000;
  BetaSchedule beta_schedule = BetaSchedule::scaled_linear_beta;  // MAISI's choice; MONAI's default is linear_beta
  double beta_start = 0.0015;                         // MAISI ddpm
  double beta_end = 0.0195;

  // Throws ConfigError naming `prefix`.field when a value is unusable.
  void validate(const std::string& prefix) const;
  bool operator==(const NoiseScheduleOptions&) const = default;
};

struct SchedulerOptions {
  SchedulerKind kind = SchedulerKind::rflow;
  NoiseScheduleOptions noise;                 // ddpm, ddim, fast_ddpm
  PredictionType prediction_type = PredictionType::epsilon;  // rflow always predicts velocity
  int num_inference_steps = 30;               // rflow 30, ddpm 1000, ddim 50; fast_ddpm uses fast_ddpm_steps
  bool clip_sample = false;                   // clamp the predicted x0 to [-clip_sample_value, +clip_sample_value]
  double clip_sample_value = 1.0;
  double ddim_eta = 0.0;                      // ddim/fast_ddpm: 0 deterministic, 1 DDPM-like noise
  // rflow (MONAI RFlowScheduler names)
  TimestepSampling sample_method = TimestepSampling::logit_normal;
  double loc = 0.0;                           // logit-normal location and scale
  double scale = 1.0;
  bool use_timestep_transform = true;         // shift timesteps toward noise for inputs larger than base_img_size_numel
  double base_img_size_numel = 32.0 * 32.0 * 32.0;
  double transform_scale = 1.0;
  // Sampling with MONAI RFlowScheduler's arithmetic, as NV-Generate's loop
  // runs it: the timesteps rounded to float16 and the next timestep of each
  // step truncated to a whole number (its int()), which integrates about
  // 1 % past the end of the flow. false: the exact Euler steps. import-maisi
  // sets it, so an imported run samples what NV-Generate samples.
  bool monai_timestep_arithmetic = false;
  // fast_ddpm
  int fast_ddpm_steps = 10;
  FastDdpmSchedule fast_ddpm_schedule = FastDdpmSchedule::non_uniform;

  // Throws ConfigError naming `prefix`.field.
  void validate(const std::string& prefix) const;
  bool operator==(const SchedulerOptions&) const = default;
};

struct DiffusionUnetOptions {
  int spatial_dims = 3;
  int in_channels = 4;                                   // latent channels of the autoencoder
  int out_channels = 4;
  std::vector<int> channels{64, 128, 256, 512};          // MAISI
  std::vector<int> num_res_blocks{2, 2, 2, 2};
  std::vector<bool> attention_levels{false, false, true, true};
  std::vector<int> num_head_channels{0, 0, 32, 32};      // 0: one head (MAISI: no attention at those levels)
  int norm_num_groups = 32;
  double norm_eps = 1e-6;
  bool include_spacing_input = false;                    // MAISI's spacing conditioning
  // The rest of MONAI's DiffusionModelUNetMaisi (docs/maisi-networks-unet.md).
  // Defaults keep plain DiffusionModelUNet's shape, so include_fc stays true
  // here although MAISI's default is false: set it from the released config.
  int num_class_embeds = 0;                              // >0: `class_embedding` (MONAI's None is 0); class_labels in [0, n)
  bool include_top_region_index_input = false;           // `top_region_index_layer`, a [B, 4] input
  bool include_bottom_region_index_input = false;        // `bottom_region_index_layer`, a [B, 4] input
  bool resblock_updown = false;                          // resnet blocks (avg pool / nearest) as down/upsamplers
  bool with_conditioning = false;                        // attention levels become cross-attention transformers
  int transformer_num_layers = 1;                        // transformer blocks per cross-attention
  int cross_attention_dim = 0;                           // context channels; required (>0) with with_conditioning
  bool upcast_attention = false;                         // cross-attention in float32 under fp16/bf16
  bool include_fc = true;                                // attention output projection `out_proj`
  bool use_combined_linear = false;                      // one `qkv` projection instead of to_q/to_k/to_v
  bool use_flash_attention = false;                      // accepted for MONAI configs; the math is the same
  double dropout_cattn = 0.0;                            // dropout inside the cross-attention transformers

  // Throws ConfigError naming `prefix`.field.
  void validate(const std::string& prefix) const;
  bool operator==(const DiffusionUnetOptions&) const = default;
};

}  // namespace medsynth
