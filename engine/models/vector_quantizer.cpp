#include "models/vector_quantizer.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "core/error.hpp"

namespace medsynth {

VectorQuantizerImpl::VectorQuantizerImpl(const VectorQuantizerOptions& options) : options_(options) {
  options_.validate();
  const auto K = options_.num_embeddings, D = options_.embedding_dim;
  // Uniform in +-1/K as in VQ-VAE: codes start near the origin, where a fresh encoder's outputs are.
  at::Tensor init = at::rand({K, D}) * (2.0 / K) - 1.0 / K;
  if (options_.ema()) {
    embedding = register_buffer("embedding", init);
    ema_cluster_size = register_buffer("ema_cluster_size", at::zeros({K}));
    ema_embed_sum = register_buffer("ema_embed_sum", init.clone());
  } else {
    embedding = register_parameter("embedding", init);
  }
  usage = register_buffer("usage", at::full({K}, 1.0 / K));
  updates = register_buffer("updates", at::zeros({}, at::kLong));
}

void VectorQuantizerImpl::reduce(std::vector<at::Tensor>& tensors) const {
  if (reduce_) reduce_(tensors);
}

at::Tensor VectorQuantizerImpl::nearest(const at::Tensor& flat) const {
  at::Tensor e = embedding.detach().to(at::kFloat);
  // ||x||^2 - 2 x.e + ||e||^2; the ||x||^2 term does not change the argmin.
  at::Tensor d = e.pow(2).sum(1).unsqueeze(0) - 2 * at::matmul(flat, e.t());
  return d.argmin(1);
}

QuantizerOutput VectorQuantizerImpl::forward(const at::Tensor& z_in) {
  if (z_in.dim() != 5 || z_in.size(1) != options_.embedding_dim)
    throw UsageError("vector quantizer: expected [B, " + std::to_string(options_.embedding_dim) + ", d, h, w], got " + std::to_string(z_in.dim()) + " dims");
  at::Tensor z = z_in.to(at::kFloat);
  at::Tensor flat = z.permute({0, 2, 3, 4, 1}).reshape({-1, options_.embedding_dim});
  QuantizerOutput out;
  at::Tensor idx = nearest(flat.detach());
  at::Tensor one_hot = at::one_hot(idx, options_.num_embeddings).to(at::kFloat);
  at::Tensor counts = one_hot.sum(0);
  {
    at::Tensor p = counts / std::max<std::int64_t>(1, idx.size(0));
    out.perplexity = at::exp(-(p * at::log(p + 1e-10)).sum()).item<double>();
  }
  at::Tensor q_flat = at::embedding(embedding.to(at::kFloat), idx);
  at::Tensor commitment = (flat - q_flat.detach()).pow(2).mean();
  out.loss = options_.commitment_cost * commitment;
  if (!options_.ema()) out.loss = out.loss + (q_flat - flat.detach()).pow(2).mean();

  if (is_training()) {
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> stats{counts.clone(), at::full({1}, static_cast<double>(idx.size(0)))};
    reduce(stats);
    usage.mul_(options_.ema_decay).add_(stats[0] / stats[1].clamp_min(1), 1 - options_.ema_decay);
    if (options_.ema()) update_ema(flat.detach(), one_hot);
    updates.add_(1);
    out.restarted = restart_dead_codes(flat.detach());
  }
  at::Tensor q = q_flat.view({z.size(0), z.size(2), z.size(3), z.size(4), options_.embedding_dim}).permute({0, 4, 1, 2, 3});
  out.quantized = (z + (q - z).detach()).to(z_in.scalar_type());  // straight-through
  out.indices = idx.view({z.size(0), z.size(2), z.size(3), z.size(4)});
  return out;
}

void VectorQuantizerImpl::update_ema(const at::Tensor& flat, const at::Tensor& one_hot) {
  std::vector<at::Tensor> stats{one_hot.sum(0), at::matmul(one_hot.t(), flat)};
  reduce(stats);
  const double d = options_.ema_decay;
  ema_cluster_size.mul_(d).add_(stats[0], 1 - d);
  ema_embed_sum.mul_(d).add_(stats[1], 1 - d);
  // Laplace smoothing keeps a code with no assignments from dividing by zero.
  const double n = ema_cluster_size.sum().item<double>();
  const double K = options_.num_embeddings, eps = options_.epsilon;
  at::Tensor smoothed = (ema_cluster_size + eps) / (n + K * eps) * n;
  embedding.copy_(ema_embed_sum / smoothed.unsqueeze(1));
}

int VectorQuantizerImpl::restart_dead_codes(const at::Tensor& flat) {
  if (options_.dead_code_threshold <= 0) return 0;
  at::Tensor dead = (usage < options_.dead_code_threshold).nonzero().flatten();
  const std::int64_t n_dead = dead.size(0);
  if (n_dead == 0) return 0;
  // Each rank draws encoder outputs from its own batch with a generator keyed
  // on the update count; the draws are averaged over ranks so that every rank
  // writes the same vectors (identical codebooks without a broadcast).
  auto generator = at::make_generator<at::CPUGeneratorImpl>(0x9e3779b97f4a7c15ULL ^ static_cast<std::uint64_t>(updates.item<std::int64_t>()));
  at::Tensor pick = at::randint(flat.size(0), {n_dead}, generator, at::TensorOptions().dtype(at::kLong)).to(flat.device());
  at::Tensor replacement = flat.index_select(0, pick).contiguous();
  std::vector<at::Tensor> parts{replacement, at::ones({1}, flat.options())};
  reduce(parts);
  replacement = parts[0] / parts[1];
  embedding.detach().index_copy_(0, dead, replacement.to(embedding.scalar_type()));
  // A restarted code starts with the average share, so it is not restarted again at once.
  usage.index_fill_(0, dead, 1.0 / options_.num_embeddings);
  if (options_.ema()) {
    ema_cluster_size.index_fill_(0, dead, 1.0);
    ema_embed_sum.index_copy_(0, dead, replacement);
  }
  return static_cast<int>(n_dead);
}

}  // namespace medsynth
