// Block order follows MONAI's Encoder/Decoder exactly: the index of every
// block is part of its parameter names, so any reordering breaks the mapping
// of MONAI checkpoints.
#include "models/autoencoder_coders.hpp"

#include <torch/nn/modules/normalization.h>

#include <algorithm>
#include <vector>

#include "models/autoencoder_blocks.hpp"
#include "models/convolution.hpp"
#include "models/spatial_attention.hpp"

namespace medsynth {

namespace {

torch::nn::GroupNorm group_norm(std::int64_t channels, const AutoencoderKLOptions& o) {
  return torch::nn::GroupNorm(torch::nn::GroupNormOptions(o.norm_num_groups, channels).eps(o.norm_eps).affine(true));
}

// MONAI's "non-local attention": res block, attention, res block at the bottleneck.
void push_nonlocal(torch::nn::Sequential& blocks, std::int64_t channels, const AutoencoderKLOptions& o) {
  blocks->push_back(AutoencoderResBlock(channels, channels, o.norm_num_groups, o.norm_eps));
  blocks->push_back(SpatialAttentionBlock(channels, o.norm_num_groups, o.norm_eps));
  blocks->push_back(AutoencoderResBlock(channels, channels, o.norm_num_groups, o.norm_eps));
}

}  // namespace

AutoencoderEncoderImpl::AutoencoderEncoderImpl(const AutoencoderKLOptions& o) {
  const auto& ch = o.num_channels;
  torch::nn::Sequential seq;
  seq->push_back(conv3x3(o.in_channels, ch[0]));
  std::int64_t channels = ch[0];
  for (std::size_t level = 0; level < ch.size(); ++level) {
    for (int r = 0; r < o.num_res_blocks[level]; ++r) {
      seq->push_back(AutoencoderResBlock(channels, ch[level], o.norm_num_groups, o.norm_eps));
      channels = ch[level];
      if (o.attention_levels[level]) seq->push_back(SpatialAttentionBlock(channels, o.norm_num_groups, o.norm_eps));
    }
    if (level + 1 < ch.size()) seq->push_back(AutoencoderDownsample(channels));
  }
  if (o.with_encoder_nonlocal_attn) push_nonlocal(seq, ch.back(), o);
  seq->push_back(group_norm(ch.back(), o));
  seq->push_back(conv3x3(ch.back(), o.latent_channels));
  blocks = register_module("blocks", seq);
}

at::Tensor AutoencoderEncoderImpl::forward(const at::Tensor& x) { return blocks->forward(x); }

AutoencoderDecoderImpl::AutoencoderDecoderImpl(const AutoencoderKLOptions& o) {
  std::vector<int> ch(o.num_channels.rbegin(), o.num_channels.rend());
  std::vector<int> res(o.num_res_blocks.rbegin(), o.num_res_blocks.rend());
  std::vector<bool> attn(o.attention_levels.rbegin(), o.attention_levels.rend());
  torch::nn::Sequential seq;
  seq->push_back(conv3x3(o.latent_channels, ch[0]));
  if (o.with_decoder_nonlocal_attn) push_nonlocal(seq, ch[0], o);
  std::int64_t channels = ch[0];
  for (std::size_t level = 0; level < ch.size(); ++level) {
    for (int r = 0; r < res[level]; ++r) {
      seq->push_back(AutoencoderResBlock(channels, ch[level], o.norm_num_groups, o.norm_eps));
      channels = ch[level];
      if (attn[level]) seq->push_back(SpatialAttentionBlock(channels, o.norm_num_groups, o.norm_eps));
    }
    if (level + 1 < ch.size()) seq->push_back(AutoencoderUpsample(channels, o.use_convtranspose));
  }
  seq->push_back(group_norm(channels, o));
  seq->push_back(conv3x3(channels, o.out_channels));
  blocks = register_module("blocks", seq);
}

at::Tensor AutoencoderDecoderImpl::forward(const at::Tensor& x) { return blocks->forward(x); }

}  // namespace medsynth
