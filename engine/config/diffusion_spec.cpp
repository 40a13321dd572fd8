#include "config/diffusion_spec.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cmath>

namespace medsynth {

void NoiseScheduleOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  if (num_train_timesteps < 2) errors.push_back({prefix + ".num_train_timesteps", "must be at least 2"});
  if (!(beta_start > 0.0 && beta_start < 1.0)) errors.push_back({prefix + ".beta_start", "must be in (0, 1)"});
  if (!(beta_end > 0.0 && beta_end < 1.0)) errors.push_back({prefix + ".beta_end", "must be in (0, 1)"});
  if (beta_end < beta_start) errors.push_back({prefix + ".beta_end", "must not be below beta_start"});
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

void SchedulerOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  auto add = [&](const std::string& field, const std::string& message) {
    errors.push_back({prefix + "." + field, message});
  };
  if (num_inference_steps < 1 || num_inference_steps > noise.num_train_timesteps)
    add("num_inference_steps", "must be between 1 and num_train_timesteps (" + std::to_string(noise.num_train_timesteps) + ")");
  if (!(clip_sample_value > 0)) add("clip_sample_value", "must be positive");
  if (!(ddim_eta >= 0.0 && ddim_eta <= 1.0)) add("ddim_eta", "must be in [0, 1]");
  if (!(clip_sample_value > 0.0) || !std::isfinite(clip_sample_value))
    add("clip_sample_value", "must be finite and > 0");
  if (!(scale > 0)) add("scale", "must be positive");
  if (!(base_img_size_numel >= 1)) add("base_img_size_numel", "must be at least 1");
  if (!(transform_scale > 0)) add("transform_scale", "must be positive");
  if (fast_ddpm_steps < 2 || fast_ddpm_steps > noise.num_train_timesteps)
    add("fast_ddpm_steps", "must be between 2 and num_train_timesteps");
  try {
    noise.validate(prefix);
  } catch (const ConfigError& e) {
    for (const auto& f : e.errors()) errors.push_back(f);
  }
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

namespace {

// The MAISI switches: class embedding, cross-attention and its heads. MONAI
// builds a cross-attention transformer with channels / num_head_channels
// heads (floor), at every attention level and always in the middle block.
void validate_maisi_switches(const DiffusionUnetOptions& o, const std::string& prefix, std::vector<FieldError>& errors) {
  auto add = [&](const std::string& field, const std::string& message) { errors.push_back({prefix + "." + field, message}); };
  if (o.num_class_embeds < 0) add("num_class_embeds", "must be 0 (no class embedding) or positive");
  if (o.with_conditioning && o.cross_attention_dim < 1) add("cross_attention_dim", "must be positive with with_conditioning");
  if (!o.with_conditioning && o.cross_attention_dim != 0) add("cross_attention_dim", "needs with_conditioning (or set it to 0)");
  if (o.transformer_num_layers < 1) add("transformer_num_layers", "must be at least 1");
  if (!(o.dropout_cattn >= 0.0 && o.dropout_cattn <= 1.0)) add("dropout_cattn", "must be in [0, 1]");
  if (!o.with_conditioning) return;
  const std::size_t levels = std::min(o.channels.size(), std::min(o.num_head_channels.size(), o.attention_levels.size()));
  for (std::size_t i = 0; i < levels; ++i) {
    const bool transformer = o.attention_levels[i] || i + 1 == o.channels.size();  // the middle block uses the last level
    if (transformer && (o.num_head_channels[i] < 1 || o.num_head_channels[i] > o.channels[i]))
      add("num_head_channels", "level " + std::to_string(i) + ": cross-attention needs 1 to " + std::to_string(o.channels[i]) +
                                   " channels per head, not " + std::to_string(o.num_head_channels[i]));
  }
}

}  // namespace

void DiffusionUnetOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  auto add = [&](const std::string& field, const std::string& message) { errors.push_back({prefix + "." + field, message}); };
  const std::size_t levels = channels.size();
  if (spatial_dims != 3) add("spatial_dims", "must be 3 (medsynth generates volumes)");
  if (in_channels < 1) add("in_channels", "must be at least 1");
  if (out_channels < 1) add("out_channels", "must be at least 1");
  if (levels < 1) add("channels", "must list at least one level");
  if (norm_num_groups < 1) add("norm_num_groups", "must be at least 1");
  if (num_res_blocks.size() != levels) add("num_res_blocks", "must have one entry per level of channels (" + std::to_string(levels) + ")");
  if (attention_levels.size() != levels) add("attention_levels", "must have one entry per level of channels (" + std::to_string(levels) + ")");
  if (num_head_channels.size() != levels) add("num_head_channels", "must have one entry per level of channels (" + std::to_string(levels) + ")");
  for (std::size_t i = 0; i < levels; ++i) {
    if (channels[i] < 1 || norm_num_groups < 1 || channels[i] % norm_num_groups != 0)
      add("channels", "every level must be a positive multiple of norm_num_groups (" + std::to_string(norm_num_groups) + ")");
    if (i < num_res_blocks.size() && num_res_blocks[i] < 1) add("num_res_blocks", "every level needs at least one block");
    if (i < num_head_channels.size() && i < attention_levels.size() && attention_levels[i] && !with_conditioning && num_head_channels[i] > 0 &&
        channels[i] % num_head_channels[i] != 0)
      add("num_head_channels", "level " + std::to_string(i) + ": channels " + std::to_string(channels[i]) + " not divisible by " +
                                   std::to_string(num_head_channels[i]));
  }
  if (!(norm_eps > 0)) add("norm_eps", "must be positive");
  validate_maisi_switches(*this, prefix, errors);
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

}  // namespace medsynth
