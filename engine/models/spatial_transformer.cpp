#include "models/spatial_transformer.hpp"

#include <ATen/ATen.h>

namespace medsynth {
namespace {

at::Tensor train_dropout(const at::Tensor& x, double p, bool training) { return training && p > 0 ? at::dropout(x, p, true) : x; }

torch::nn::Linear linear(std::int64_t in, std::int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

}  // namespace

CrossAttentionImpl::CrossAttentionImpl(std::int64_t hidden_size, std::int64_t num_heads, std::int64_t context_size, bool upcast,
                                       double dropout)
    : num_heads_(num_heads), upcast_(upcast), dropout_(dropout) {
  out_proj = register_module("out_proj", linear(hidden_size, hidden_size, true));
  to_q = register_module("to_q", linear(hidden_size, hidden_size, false));
  to_k = register_module("to_k", linear(context_size, hidden_size, false));
  to_v = register_module("to_v", linear(context_size, hidden_size, false));
}

at::Tensor CrossAttentionImpl::forward(const at::Tensor& x, const at::Tensor& context) {
  const auto& kv = context.defined() ? context : x;
  const double p = is_training() ? dropout_ : 0.0;
  auto h = multi_head_attention(to_q->forward(x), to_k->forward(kv), to_v->forward(kv), num_heads_, upcast_, p);
  return train_dropout(out_proj->forward(h), dropout_, is_training());
}

GegluFeedForwardImpl::GegluFeedForwardImpl(std::int64_t channels, double dropout) : dropout_(dropout) {
  linear1 = register_module("linear1", linear(channels, channels * 8, true));
  linear2 = register_module("linear2", linear(channels * 4, channels, true));
}

at::Tensor GegluFeedForwardImpl::forward(const at::Tensor& x) {
  auto parts = linear1->forward(x).chunk(2, -1);
  auto h = train_dropout(parts[0] * at::gelu(parts[1]), dropout_, is_training());
  return train_dropout(linear2->forward(h), dropout_, is_training());
}

DiffusionTransformerBlockImpl::DiffusionTransformerBlockImpl(const SpatialTransformerOptions& o, std::int64_t num_heads,
                                                             std::int64_t inner_dim) {
  SelfAttentionOptions self;
  self.hidden_size = inner_dim;
  self.num_heads = num_heads;
  self.qkv_bias = false;
  self.include_fc = o.include_fc;
  self.use_combined_linear = o.use_combined_linear;
  self.upcast_attention = o.upcast_attention;
  self.dropout = o.dropout;
  attn1 = register_module("attn1", SelfAttention(self));
  ff = register_module("ff", GegluFeedForward(inner_dim, o.dropout));
  attn2 = register_module("attn2", CrossAttention(inner_dim, num_heads, o.cross_attention_dim, o.upcast_attention, o.dropout));
  auto layer_norm = [&] { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({inner_dim})); };
  norm1 = register_module("norm1", layer_norm());
  norm2 = register_module("norm2", layer_norm());
  norm3 = register_module("norm3", layer_norm());
}

at::Tensor DiffusionTransformerBlockImpl::forward(const at::Tensor& x, const at::Tensor& context) {
  auto h = attn1->forward(norm1->forward(x)) + x;
  h = attn2->forward(norm2->forward(h), context) + h;
  return ff->forward(norm3->forward(h)) + h;
}

SpatialTransformerImpl::SpatialTransformerImpl(const SpatialTransformerOptions& o) {
  const std::int64_t heads = o.channels / o.num_head_channels;
  const std::int64_t inner = heads * o.num_head_channels;  // may be below channels: MONAI floors the head count
  norm = register_module(
      "norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(o.norm_num_groups, o.channels).eps(o.norm_eps).affine(true)));
  proj_in = register_module("proj_in", conv1x1(o.channels, inner));
  transformer_blocks = register_module("transformer_blocks", torch::nn::ModuleList());
  for (int i = 0; i < o.num_layers; ++i) transformer_blocks->push_back(DiffusionTransformerBlock(o, heads, inner));
  proj_out = register_module("proj_out", conv1x1(inner, o.channels));
  torch::NoGradGuard no_grad;  // MONAI's zero_module: a fresh transformer adds nothing
  proj_out->conv->weight.zero_();
  proj_out->conv->bias.zero_();
}

at::Tensor SpatialTransformerImpl::forward(const at::Tensor& x, const at::Tensor& context) {
  const auto b = x.size(0), d = x.size(2), h = x.size(3), w = x.size(4);
  auto t = proj_in->forward(norm->forward(x));
  const auto inner = t.size(1);
  // Tokens in (d h w) order, channels last, as MONAI's permute(0, 2, 3, 4, 1).
  t = t.permute({0, 2, 3, 4, 1}).reshape({b, d * h * w, inner});
  for (const auto& block : *transformer_blocks) t = block->as<DiffusionTransformerBlockImpl>()->forward(t, context);
  t = t.reshape({b, d, h, w, inner}).permute({0, 4, 1, 2, 3}).contiguous();
  return proj_out->forward(t) + x;
}

}  // namespace medsynth
