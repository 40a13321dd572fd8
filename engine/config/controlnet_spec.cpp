#include "config/controlnet_spec.hpp"

#include "core/error.hpp"

namespace medsynth {

ControlNetMaisiOptions ControlNetMaisiOptions::from_unet(const DiffusionUnetOptions& u) {
  ControlNetMaisiOptions c;
  c.spatial_dims = u.spatial_dims;
  c.in_channels = u.in_channels;
  c.channels = u.channels;
  c.num_res_blocks = u.num_res_blocks;
  c.attention_levels = u.attention_levels;
  c.num_head_channels = u.num_head_channels;
  c.norm_num_groups = u.norm_num_groups;
  c.norm_eps = u.norm_eps;
  c.resblock_updown = u.resblock_updown;
  c.with_conditioning = u.with_conditioning;
  c.transformer_num_layers = u.transformer_num_layers;
  c.cross_attention_dim = u.cross_attention_dim;
  c.num_class_embeds = u.num_class_embeds;
  c.upcast_attention = u.upcast_attention;
  c.include_fc = u.include_fc;
  c.use_combined_linear = u.use_combined_linear;
  c.use_flash_attention = u.use_flash_attention;
  return c;
}

DiffusionUnetOptions ControlNetMaisiOptions::trunk() const {
  DiffusionUnetOptions u;
  u.spatial_dims = spatial_dims;
  u.in_channels = in_channels;
  u.out_channels = in_channels;
  u.channels = channels;
  u.num_res_blocks = num_res_blocks;
  u.attention_levels = attention_levels;
  u.num_head_channels = num_head_channels;
  u.norm_num_groups = norm_num_groups;
  u.norm_eps = norm_eps;
  u.resblock_updown = resblock_updown;
  u.with_conditioning = with_conditioning;
  u.transformer_num_layers = transformer_num_layers;
  u.cross_attention_dim = cross_attention_dim;
  u.num_class_embeds = num_class_embeds;
  u.upcast_attention = upcast_attention;
  u.include_fc = include_fc;
  u.use_combined_linear = use_combined_linear;
  u.use_flash_attention = use_flash_attention;
  u.dropout_cattn = 0.0;  // MONAI's ControlNet passes none to its blocks
  return u;
}

void ControlNetMaisiOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  try {
    trunk().validate(prefix);  // the shared fields carry the same names
  } catch (const ConfigError& e) {
    for (const auto& f : e.errors()) errors.push_back(f);
  }
  const auto& emb = conditioning_embedding_num_channels;
  if (conditioning_embedding_in_channels < 1)
    errors.push_back({prefix + ".conditioning_embedding_in_channels", "must be at least 1"});
  if (emb.empty()) errors.push_back({prefix + ".conditioning_embedding_num_channels", "must list at least one width"});
  for (int c : emb)
    if (c < 1) errors.push_back({prefix + ".conditioning_embedding_num_channels", "every width must be at least 1"});
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

}  // namespace medsynth
