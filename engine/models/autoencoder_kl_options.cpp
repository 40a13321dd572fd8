#include "models/autoencoder_kl_options.hpp"

#include <cmath>

#include "core/error.hpp"

namespace medsynth {

namespace {

const std::string k_prefix = "model.autoencoder.";

[[noreturn]] void fail(const std::string& field, const std::string& reason) {
  throw UsageError(k_prefix + field + ": " + reason);
}

std::string indexed(const std::string& field, std::size_t i) { return field + "[" + std::to_string(i) + "]"; }

}  // namespace

AutoencoderKLOptions AutoencoderKLOptions::from_spec(const AutoencoderSpec& spec) {
  AutoencoderKLOptions o;
  o.spatial_dims = spec.spatial_dims;
  o.in_channels = spec.in_channels;
  o.out_channels = spec.out_channels;
  o.latent_channels = spec.latent_channels;
  o.num_channels = spec.num_channels;
  o.num_res_blocks = spec.num_res_blocks;
  o.norm_num_groups = spec.norm_num_groups;
  o.norm_eps = spec.norm_eps;
  o.attention_levels = spec.attention_levels;
  o.with_encoder_nonlocal_attn = spec.with_encoder_nonlocal_attn;
  o.with_decoder_nonlocal_attn = spec.with_decoder_nonlocal_attn;
  o.use_checkpointing = spec.use_checkpointing;
  o.use_convtranspose = spec.use_convtranspose;
  o.maisi = spec.maisi;
  o.num_splits = spec.num_splits;
  o.dim_split = spec.dim_split;
  o.norm_float16 = spec.norm_float16;
  o.include_fc = spec.include_fc;
  o.use_combined_linear = spec.use_combined_linear;
  return o;
}

AutoencoderKLOptions AutoencoderKLOptions::from_spec(const AutoencoderSpec& spec, const LossSpec& loss) {
  auto o = from_spec(spec);
  o.logvar_min = loss.logvar_clamp[0];
  o.logvar_max = loss.logvar_clamp[1];
  return o;
}

void AutoencoderKLOptions::validate() const {
  if (spatial_dims != 3) fail("spatial_dims", "must be 3 (got " + std::to_string(spatial_dims) + ")");
  if (in_channels < 1) fail("in_channels", "must be >= 1 (got " + std::to_string(in_channels) + ")");
  if (out_channels < 1) fail("out_channels", "must be >= 1 (got " + std::to_string(out_channels) + ")");
  if (latent_channels < 1) fail("latent_channels", "must be >= 1 (got " + std::to_string(latent_channels) + ")");
  if (norm_num_groups < 1) fail("norm_num_groups", "must be >= 1 (got " + std::to_string(norm_num_groups) + ")");
  if (!(norm_eps > 0.0) || !std::isfinite(norm_eps)) fail("norm_eps", "must be a finite number > 0");
  if (num_channels.empty()) fail("num_channels", "must list at least one level");
  for (std::size_t i = 0; i < num_channels.size(); ++i) {
    if (num_channels[i] < 1) fail(indexed("num_channels", i), "must be >= 1 (got " + std::to_string(num_channels[i]) + ")");
    if (num_channels[i] % norm_num_groups != 0)
      fail(indexed("num_channels", i), "must be a multiple of norm_num_groups (" + std::to_string(norm_num_groups) +
                                           "), got " + std::to_string(num_channels[i]));
  }
  const auto levels = std::to_string(num_channels.size());
  if (num_res_blocks.size() != num_channels.size())
    fail("num_res_blocks", "must have one entry per level (" + levels + "), got " + std::to_string(num_res_blocks.size()));
  for (std::size_t i = 0; i < num_res_blocks.size(); ++i) {
    // 0 would leave a level's channel count unchanged and break the next level.
    if (num_res_blocks[i] < 1)
      fail(indexed("num_res_blocks", i), "must be >= 1 (got " + std::to_string(num_res_blocks[i]) + ")");
  }
  if (attention_levels.size() != num_channels.size())
    fail("attention_levels",
         "must have one entry per level (" + levels + "), got " + std::to_string(attention_levels.size()));
  validate_maisi();
  if (!std::isfinite(logvar_min) || !std::isfinite(logvar_max) || !(logvar_min < logvar_max))
    throw UsageError("loss.logvar_clamp: must be two finite numbers with min < max (got " + std::to_string(logvar_min) +
                     ", " + std::to_string(logvar_max) + ")");
  // exp(logvar) must stay finite in float32 (max ~3.4e38 = e^88.7).
  if (logvar_max > 80.0)
    throw UsageError("loss.logvar_clamp: max must be <= 80 so exp(logvar) stays finite in float32 (got " +
                     std::to_string(logvar_max) + ")");
}

void AutoencoderKLOptions::validate_maisi() const {
  if (num_splits < 1) fail("num_splits", "must be >= 1 (got " + std::to_string(num_splits) + ")");
  if (dim_split < 0 || dim_split > 2) fail("dim_split", "must be 0, 1 or 2 (D, H, W; got " + std::to_string(dim_split) + ")");
  // The plain network has no split convolutions or float16 norms: accepting
  // them there would silently do nothing.
  if (!maisi && num_splits > 1) fail("num_splits", "needs maisi: true (the plain AutoencoderKL does not split)");
  if (!maisi && norm_float16) fail("norm_float16", "needs maisi: true (the plain AutoencoderKL has no float16 norms)");
}

int AutoencoderKLOptions::compression() const {
  return num_channels.empty() ? 1 : 1 << (num_channels.size() - 1);
}

}  // namespace medsynth
