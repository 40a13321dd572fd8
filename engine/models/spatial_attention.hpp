// Single-head spatial self-attention over all voxels of a 3D feature map, in
// the shape of MONAI's `SpatialAttentionBlock` (GroupNorm `norm`, then an
// `SABlock` named `attn` with separate `to_q`/`to_k`/`to_v` projections and an
// `out_proj`, plus a residual). Used by the KL autoencoder at levels with
// attention and in its non-local middle blocks; names mirror MONAI so that
// `...blocks.N.attn.to_q.weight` maps one to one.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

namespace medsynth {

// MONAI's SABlock with qkv_bias true, include_fc true, use_combined_linear
// false. The autoencoder uses one head; the diffusion UNet splits channels
// into heads of num_head_channels (head-major, as MONAI's "b h (l d)").
class SelfAttentionImpl : public torch::nn::Module {
 public:
  explicit SelfAttentionImpl(std::int64_t hidden_size, std::int64_t num_heads = 1);
  // x: [B, tokens, hidden_size]
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Linear out_proj{nullptr};
  torch::nn::Linear to_q{nullptr};
  torch::nn::Linear to_k{nullptr};
  torch::nn::Linear to_v{nullptr};

 private:
  std::int64_t num_heads_;
};
TORCH_MODULE(SelfAttention);

class SpatialAttentionBlockImpl : public torch::nn::Module {
 public:
  // num_head_channels 0: one head over all channels (MONAI's None).
  SpatialAttentionBlockImpl(std::int64_t num_channels, std::int64_t norm_num_groups, double norm_eps,
                            std::int64_t num_head_channels = 0);
  // x: [B, C, D, H, W] -> same shape
  at::Tensor forward(const at::Tensor& x);

  torch::nn::GroupNorm norm{nullptr};
  SelfAttention attn{nullptr};
};
TORCH_MODULE(SpatialAttentionBlock);

}  // namespace medsynth
