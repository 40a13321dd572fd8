// The cross-attention path of the diffusion UNet, in the shape of MONAI's
// SpatialTransformer: GroupNorm `norm`, a 1x1 `proj_in` to heads x head
// channels, `transformer_blocks` (each: self-attention `attn1`, cross-attention
// `attn2` over a context [B, tokens, cross_attention_dim], a GEGLU feed-forward
// `ff`, LayerNorms `norm1..3`), a zero-initialised 1x1 `proj_out`, plus the
// residual. Built by the UNet blocks (diffusion_unet_blocks.hpp) at attention
// levels when the UNet has with_conditioning; names mirror MONAI's state_dict.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <cstdint>

#include "models/convolution.hpp"
#include "models/spatial_attention.hpp"

namespace medsynth {

// The transformer's switches, as the UNet options give them.
struct SpatialTransformerOptions {
  std::int64_t channels = 0;            // in and out
  std::int64_t num_head_channels = 1;   // heads = channels / num_head_channels (floor), as MONAI
  int num_layers = 1;
  std::int64_t norm_num_groups = 32;
  double norm_eps = 1e-6;
  std::int64_t cross_attention_dim = 0; // context channels
  bool upcast_attention = false;
  bool include_fc = true;               // attn1's out_proj (attn2 always has one)
  bool use_combined_linear = false;     // attn1's qkv
  double dropout = 0.0;                 // MONAI's dropout_cattn
};

// MONAI's CrossAttentionBlock without bias on q/k/v: queries from x, keys and
// values from the context (from x itself when no context is given).
class CrossAttentionImpl : public torch::nn::Module {
 public:
  CrossAttentionImpl(std::int64_t hidden_size, std::int64_t num_heads, std::int64_t context_size, bool upcast, double dropout);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& context);

  torch::nn::Linear out_proj{nullptr};
  torch::nn::Linear to_q{nullptr};
  torch::nn::Linear to_k{nullptr};
  torch::nn::Linear to_v{nullptr};

 private:
  std::int64_t num_heads_;
  bool upcast_;
  double dropout_;
};
TORCH_MODULE(CrossAttention);

// MONAI's MLPBlock with act "GEGLU": linear1 to 2 x 4C, x * gelu(gate), linear2 back to C.
class GegluFeedForwardImpl : public torch::nn::Module {
 public:
  GegluFeedForwardImpl(std::int64_t channels, double dropout);
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Linear linear1{nullptr};
  torch::nn::Linear linear2{nullptr};

 private:
  double dropout_;
};
TORCH_MODULE(GegluFeedForward);

// MONAI's DiffusionUNetTransformerBlock: pre-norm self-attention, cross-attention, feed-forward, each residual.
class DiffusionTransformerBlockImpl : public torch::nn::Module {
 public:
  DiffusionTransformerBlockImpl(const SpatialTransformerOptions& options, std::int64_t num_heads, std::int64_t inner_dim);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& context);

  SelfAttention attn1{nullptr};
  GegluFeedForward ff{nullptr};
  CrossAttention attn2{nullptr};
  torch::nn::LayerNorm norm1{nullptr};
  torch::nn::LayerNorm norm2{nullptr};
  torch::nn::LayerNorm norm3{nullptr};
};
TORCH_MODULE(DiffusionTransformerBlock);

class SpatialTransformerImpl : public torch::nn::Module {
 public:
  explicit SpatialTransformerImpl(const SpatialTransformerOptions& options);
  // x [B, C, D, H, W], context [B, tokens, cross_attention_dim] -> x's shape.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& context);

  torch::nn::GroupNorm norm{nullptr};
  Convolution proj_in{nullptr};
  torch::nn::ModuleList transformer_blocks{nullptr};
  Convolution proj_out{nullptr};
};
TORCH_MODULE(SpatialTransformer);

}  // namespace medsynth
