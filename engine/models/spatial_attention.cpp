#include "models/spatial_attention.hpp"

#include <ATen/ATen.h>

#include <cmath>

namespace medsynth {

at::Tensor multi_head_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, std::int64_t num_heads,
                                bool upcast, double dropout) {
  // [B, N, C] -> [B, heads, N, C/heads]. The fused kernel never materialises
  // the N x N matrix where it can avoid it (N = 4096 at a 16^3 latent); the
  // result is MONAI's softmax(q k^T / sqrt(head dim)) v per head.
  const auto b = q.size(0), c = q.size(2), d = c / num_heads;
  auto heads = [&](const at::Tensor& t) {
    auto h = t.view({b, t.size(1), num_heads, d}).transpose(1, 2);
    return upcast ? h.to(at::kFloat) : h;
  };
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  auto h = at::scaled_dot_product_attention(heads(q), heads(k), heads(v), /*attn_mask=*/{}, dropout, /*is_causal=*/false, scale);
  return h.transpose(1, 2).reshape({b, q.size(1), c}).to(q.scalar_type());
}

SelfAttentionImpl::SelfAttentionImpl(std::int64_t hidden_size, std::int64_t num_heads)
    : SelfAttentionImpl(SelfAttentionOptions{hidden_size, num_heads}) {}

SelfAttentionImpl::SelfAttentionImpl(const SelfAttentionOptions& o) : options_(o) {
  // Registered in MONAI's order so named_parameters() lists them alike.
  const auto c = o.hidden_size;
  auto linear = [&](std::int64_t out, bool bias) { return torch::nn::Linear(torch::nn::LinearOptions(c, out).bias(bias)); };
  if (o.include_fc) out_proj = register_module("out_proj", linear(c, true));
  if (o.use_combined_linear) {
    qkv = register_module("qkv", linear(3 * c, o.qkv_bias));
  } else {
    to_q = register_module("to_q", linear(c, o.qkv_bias));
    to_k = register_module("to_k", linear(c, o.qkv_bias));
    to_v = register_module("to_v", linear(c, o.qkv_bias));
  }
}

at::Tensor SelfAttentionImpl::forward(const at::Tensor& x) {
  at::Tensor q, k, v;
  if (qkv) {
    // MONAI's "b h (qkv l d)": the projection's output is [q | k | v], each head-major.
    auto parts = qkv->forward(x).chunk(3, -1);
    q = parts[0], k = parts[1], v = parts[2];
  } else {
    q = to_q->forward(x), k = to_k->forward(x), v = to_v->forward(x);
  }
  const double p = is_training() ? options_.dropout : 0.0;
  auto h = multi_head_attention(q, k, v, options_.num_heads, options_.upcast_attention, p);
  if (out_proj) h = out_proj->forward(h);
  return p > 0 ? at::dropout(h, p, /*train=*/true) : h;
}

SpatialAttentionBlockImpl::SpatialAttentionBlockImpl(std::int64_t num_channels, std::int64_t norm_num_groups,
                                                     double norm_eps, std::int64_t num_head_channels)
    : SpatialAttentionBlockImpl(num_channels, norm_num_groups, norm_eps, num_head_channels, SelfAttentionOptions{}) {}

SpatialAttentionBlockImpl::SpatialAttentionBlockImpl(std::int64_t num_channels, std::int64_t norm_num_groups, double norm_eps,
                                                     std::int64_t num_head_channels, SelfAttentionOptions attention) {
  norm = register_module(
      "norm", torch::nn::GroupNorm(torch::nn::GroupNormOptions(norm_num_groups, num_channels).eps(norm_eps).affine(true)));
  attention.hidden_size = num_channels;
  attention.num_heads = num_head_channels > 0 ? num_channels / num_head_channels : 1;
  attn = register_module("attn", SelfAttention(attention));
}

at::Tensor SpatialAttentionBlockImpl::forward(const at::Tensor& x) {
  const auto b = x.size(0), c = x.size(1), d = x.size(2), h = x.size(3), w = x.size(4);
  // Tokens in (d h w) order, as MONAI's "b c h w d -> b (h w d) c".
  auto tokens = norm->forward(x).reshape({b, c, d * h * w}).transpose(1, 2);
  auto out = attn->forward(tokens).transpose(1, 2).reshape({b, c, d, h, w});
  return out + x;
}

}  // namespace medsynth
