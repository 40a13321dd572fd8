// Block order follows MONAI's Encoder/Decoder exactly: the index of every
// block is part of its parameter names, so any reordering breaks the mapping
// of MONAI checkpoints.
#include "models/autoencoder_coders.hpp"

#include <torch/nn/modules/normalization.h>

#include <algorithm>
#include <vector>

#include "models/autoencoder_blocks.hpp"
#include "models/convolution.hpp"
#include "models/maisi_autoencoder_blocks.hpp"
#include "models/spatial_attention.hpp"

namespace medsynth {

namespace {

// Each block in the plain (MONAI AutoencoderKL) or the MAISI flavour, chosen
// by options.maisi; both take the same place in the block list.
MaisiBlockOptions maisi_options(const AutoencoderKLOptions& o) { return {o.num_splits, o.dim_split, o.norm_float16}; }

torch::nn::AnyModule conv_block(std::int64_t in, std::int64_t out, const AutoencoderKLOptions& o) {
  if (o.maisi) return torch::nn::AnyModule(maisi_conv(in, out, 3, maisi_options(o)));
  return torch::nn::AnyModule(conv3x3(in, out));
}

torch::nn::AnyModule norm_block(std::int64_t channels, const AutoencoderKLOptions& o) {
  if (o.maisi) return torch::nn::AnyModule(MaisiGroupNorm(o.norm_num_groups, channels, o.norm_eps, o.norm_float16));
  return torch::nn::AnyModule(
      torch::nn::GroupNorm(torch::nn::GroupNormOptions(o.norm_num_groups, channels).eps(o.norm_eps).affine(true)));
}

torch::nn::AnyModule res_block(std::int64_t in, std::int64_t out, const AutoencoderKLOptions& o) {
  if (o.maisi) return torch::nn::AnyModule(MaisiResBlock(in, out, o.norm_num_groups, o.norm_eps, maisi_options(o)));
  return torch::nn::AnyModule(AutoencoderResBlock(in, out, o.norm_num_groups, o.norm_eps));
}

torch::nn::AnyModule downsample_block(std::int64_t channels, const AutoencoderKLOptions& o) {
  if (o.maisi) return torch::nn::AnyModule(MaisiDownsample(channels, maisi_options(o)));
  return torch::nn::AnyModule(AutoencoderDownsample(channels));
}

torch::nn::AnyModule upsample_block(std::int64_t channels, const AutoencoderKLOptions& o) {
  if (o.maisi) return torch::nn::AnyModule(MaisiUpsample(channels, o.use_convtranspose, maisi_options(o)));
  return torch::nn::AnyModule(AutoencoderUpsample(channels, o.use_convtranspose));
}

torch::nn::AnyModule attention_block(std::int64_t channels, const AutoencoderKLOptions& o) {
  SelfAttentionOptions attention;
  attention.include_fc = o.include_fc;
  attention.use_combined_linear = o.use_combined_linear;
  return torch::nn::AnyModule(SpatialAttentionBlock(channels, o.norm_num_groups, o.norm_eps, 0, attention));
}

// MONAI's "non-local attention": res block, attention, res block at the
// bottleneck. MAISI keeps the plain AEKLResBlock here (names `conv1.conv`).
void push_nonlocal(torch::nn::Sequential& blocks, std::int64_t channels, const AutoencoderKLOptions& o) {
  blocks->push_back(AutoencoderResBlock(channels, channels, o.norm_num_groups, o.norm_eps));
  blocks->push_back(attention_block(channels, o));
  blocks->push_back(AutoencoderResBlock(channels, channels, o.norm_num_groups, o.norm_eps));
}

}  // namespace

AutoencoderEncoderImpl::AutoencoderEncoderImpl(const AutoencoderKLOptions& o) {
  const auto& ch = o.num_channels;
  torch::nn::Sequential seq;
  seq->push_back(conv_block(o.in_channels, ch[0], o));
  std::int64_t channels = ch[0];
  for (std::size_t level = 0; level < ch.size(); ++level) {
    for (int r = 0; r < o.num_res_blocks[level]; ++r) {
      seq->push_back(res_block(channels, ch[level], o));
      channels = ch[level];
      if (o.attention_levels[level]) seq->push_back(attention_block(channels, o));
    }
    if (level + 1 < ch.size()) seq->push_back(downsample_block(channels, o));
  }
  if (o.with_encoder_nonlocal_attn) push_nonlocal(seq, ch.back(), o);
  seq->push_back(norm_block(ch.back(), o));
  seq->push_back(conv_block(ch.back(), o.latent_channels, o));
  blocks = register_module("blocks", seq);
}

at::Tensor AutoencoderEncoderImpl::forward(const at::Tensor& x) { return blocks->forward(x); }

AutoencoderDecoderImpl::AutoencoderDecoderImpl(const AutoencoderKLOptions& o) {
  std::vector<int> ch(o.num_channels.rbegin(), o.num_channels.rend());
  std::vector<int> res(o.num_res_blocks.rbegin(), o.num_res_blocks.rend());
  std::vector<bool> attn(o.attention_levels.rbegin(), o.attention_levels.rend());
  torch::nn::Sequential seq;
  seq->push_back(conv_block(o.latent_channels, ch[0], o));
  if (o.with_decoder_nonlocal_attn) push_nonlocal(seq, ch[0], o);
  std::int64_t channels = ch[0];
  for (std::size_t level = 0; level < ch.size(); ++level) {
    for (int r = 0; r < res[level]; ++r) {
      seq->push_back(res_block(channels, ch[level], o));
      channels = ch[level];
      if (attn[level]) seq->push_back(attention_block(channels, o));
    }
    if (level + 1 < ch.size()) seq->push_back(upsample_block(channels, o));
  }
  seq->push_back(norm_block(channels, o));
  seq->push_back(conv_block(channels, o.out_channels, o));
  blocks = register_module("blocks", seq);
}

at::Tensor AutoencoderDecoderImpl::forward(const at::Tensor& x) { return blocks->forward(x); }

}  // namespace medsynth
