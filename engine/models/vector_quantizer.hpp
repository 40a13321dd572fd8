// The vector-quantised bottleneck of the 3D VQ-GAN (vqgan.hpp): each latent
// vector is replaced by its nearest codebook entry (L2), with the
// straight-through estimator carrying the decoder's gradient to the encoder.
// The codebook learns either by gradient (straight_through: codebook loss
// ||sg[z] - e||^2 + commitment ||z - sg[e]||^2, VQ-VAE) or by exponential
// moving averages of the assigned vectors (ema: VQ-VAE-2 / the seed's VQ-GAN,
// Laplace-smoothed counts; only the commitment term has a gradient). Codes
// whose usage falls below dead_code_threshold are restarted on encoder
// outputs, so the codebook does not collapse to a few entries.
//
// Distributed: the statistics (EMA counts and sums, usage) and the restart
// vectors go through `reduce` (a sum over ranks, set by the task from the
// DistContext), so every rank keeps the same codebook.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/vector_quantizer_options.hpp"

namespace medsynth {

struct QuantizerOutput {
  at::Tensor quantized;    // [B, D, d, h, w], straight-through (gradient flows to z)
  at::Tensor loss;         // commitment (+ codebook for straight_through), scalar
  at::Tensor indices;      // [B, d, h, w] int64
  double perplexity = 0;   // exp(entropy of this batch's code histogram)
  int restarted = 0;       // dead codes restarted by this call
};

class VectorQuantizerImpl : public torch::nn::Module {
 public:
  using Reduce = std::function<void(std::vector<at::Tensor>&)>;

  explicit VectorQuantizerImpl(const VectorQuantizerOptions& options);
  // z [B, D, d, h, w]. In training mode also updates the codebook (EMA) and
  // usage and restarts dead codes; in eval mode it only looks codes up.
  QuantizerOutput forward(const at::Tensor& z);
  // Nearest code per vector: flat [N, D] -> [N].
  at::Tensor nearest(const at::Tensor& flat) const;
  void set_reduce(Reduce reduce) { reduce_ = std::move(reduce); }
  const VectorQuantizerOptions& options() const { return options_; }

  at::Tensor embedding;         // [K, D]: a parameter (straight_through) or a buffer (ema)
  at::Tensor ema_cluster_size;  // [K] buffer (ema)
  at::Tensor ema_embed_sum;     // [K, D] buffer (ema)
  at::Tensor usage;             // [K] buffer: EMA of each code's share of the vectors
  at::Tensor updates;           // [] buffer: training calls so far (seeds the restart draw)

 private:
  void update_ema(const at::Tensor& flat, const at::Tensor& one_hot);
  int restart_dead_codes(const at::Tensor& flat);
  void reduce(std::vector<at::Tensor>& tensors) const;

  VectorQuantizerOptions options_;
  Reduce reduce_;
};
TORCH_MODULE(VectorQuantizer);

}  // namespace medsynth
