// Multi-head spatial self-attention over all voxels of a 3D feature map, in
// the shape of MONAI's `SpatialAttentionBlock` (GroupNorm `norm`, then an
// `SABlock` named `attn`, plus a residual). Used by the KL autoencoder at
// levels with attention and in its non-local middle blocks, and by the
// diffusion UNet's self-attention levels; names mirror MONAI so that
// `...blocks.N.attn.to_q.weight` (or `.attn.qkv.weight` with a combined
// projection) maps one to one.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

namespace medsynth {

// MONAI's SABlock switches. The defaults are the autoencoder's (and plain
// DiffusionModelUNet's) choice; MAISI's UNet turns include_fc off and
// sometimes use_combined_linear on, which changes the state_dict names.
struct SelfAttentionOptions {
  std::int64_t hidden_size = 0;
  std::int64_t num_heads = 1;
  bool qkv_bias = true;             // SpatialAttentionBlock: true; transformer attn1: false
  bool include_fc = true;           // false: no out_proj (MONAI's Identity), heads concatenated as they are
  bool use_combined_linear = false; // one `qkv` Linear (q, k, v chunks, each head-major) instead of to_q/to_k/to_v
  bool upcast_attention = false;    // compute q k^T, softmax and the weighted sum in float32 (matters in fp16/bf16)
  double dropout = 0.0;             // on the attention weights and the output, in training only
};

// Scaled dot-product attention over heads, shared by self- and cross-attention:
// q [B, Nq, H*d], k/v [B, Nk, H*d] -> [B, Nq, H*d] (head-major channels, as
// MONAI's "b h (l d)"). upcast: float32 inside, the input's dtype out.
at::Tensor multi_head_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, std::int64_t num_heads,
                                bool upcast, double dropout);

class SelfAttentionImpl : public torch::nn::Module {
 public:
  explicit SelfAttentionImpl(std::int64_t hidden_size, std::int64_t num_heads = 1);
  explicit SelfAttentionImpl(const SelfAttentionOptions& options);
  // x: [B, tokens, hidden_size]
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Linear out_proj{nullptr};  // null without include_fc
  torch::nn::Linear qkv{nullptr};       // set with use_combined_linear, else the three below
  torch::nn::Linear to_q{nullptr};
  torch::nn::Linear to_k{nullptr};
  torch::nn::Linear to_v{nullptr};

 private:
  SelfAttentionOptions options_;
};
TORCH_MODULE(SelfAttention);

class SpatialAttentionBlockImpl : public torch::nn::Module {
 public:
  // num_head_channels 0: one head over all channels (MONAI's None).
  SpatialAttentionBlockImpl(std::int64_t num_channels, std::int64_t norm_num_groups, double norm_eps,
                            std::int64_t num_head_channels = 0);
  // As above with SABlock's switches (hidden_size and num_heads are set here).
  SpatialAttentionBlockImpl(std::int64_t num_channels, std::int64_t norm_num_groups, double norm_eps,
                            std::int64_t num_head_channels, SelfAttentionOptions attention);
  // x: [B, C, D, H, W] -> same shape
  at::Tensor forward(const at::Tensor& x);

  torch::nn::GroupNorm norm{nullptr};
  SelfAttention attn{nullptr};
};
TORCH_MODULE(SpatialAttentionBlock);

}  // namespace medsynth
