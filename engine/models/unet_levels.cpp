#include "models/unet_levels.hpp"

namespace medsynth {

UnetAttentionSpec unet_attention_spec(const DiffusionUnetOptions& o, std::size_t level, bool middle) {
  UnetAttentionSpec a;
  if (!middle && !o.attention_levels[level]) return a;
  a.kind = o.with_conditioning ? UnetAttentionSpec::Kind::cross : UnetAttentionSpec::Kind::self;
  a.num_head_channels = o.num_head_channels[level];
  a.self.include_fc = o.include_fc;
  a.self.use_combined_linear = o.use_combined_linear;
  // use_flash_attention selects MONAI's fused kernel: the same softmax(q k^T / sqrt(d)) v we always compute.
  a.transformer.num_layers = o.transformer_num_layers;
  a.transformer.cross_attention_dim = o.cross_attention_dim;
  a.transformer.upcast_attention = o.upcast_attention;
  a.transformer.include_fc = o.include_fc;
  a.transformer.use_combined_linear = o.use_combined_linear;
  a.transformer.dropout = o.dropout_cattn;
  return a;
}

UnetBlockShape unet_block_shape(const DiffusionUnetOptions& o, std::int64_t in, std::int64_t out, std::int64_t temb_channels) {
  return UnetBlockShape{in, out, temb_channels, o.norm_num_groups, o.norm_eps};
}

torch::nn::ModuleList make_unet_down_blocks(const DiffusionUnetOptions& o, std::int64_t temb_channels) {
  torch::nn::ModuleList blocks;
  const std::size_t levels = o.channels.size();
  std::int64_t out_ch = o.channels[0];
  for (std::size_t i = 0; i < levels; ++i) {
    const std::int64_t in_ch = out_ch;
    out_ch = o.channels[i];
    blocks->push_back(DiffusionDownBlock(unet_block_shape(o, in_ch, out_ch, temb_channels), o.num_res_blocks[i],
                                         unet_attention_spec(o, i), i + 1 < levels, o.resblock_updown));
  }
  return blocks;
}

DiffusionMidBlock make_unet_mid_block(const DiffusionUnetOptions& o, std::int64_t temb_channels) {
  const std::int64_t c = o.channels.back();
  return DiffusionMidBlock(unet_block_shape(o, c, c, temb_channels), unet_attention_spec(o, o.channels.size() - 1, true));
}

at::Tensor run_unet_down_blocks(const torch::nn::ModuleList& down_blocks, at::Tensor h, const at::Tensor& emb,
                                const at::Tensor& context, std::vector<at::Tensor>& skips) {
  skips.push_back(h);
  for (const auto& block : *down_blocks) h = block->as<DiffusionDownBlockImpl>()->forward(h, emb, skips, context);
  return h;
}

}  // namespace medsynth
