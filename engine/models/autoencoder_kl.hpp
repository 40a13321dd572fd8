// The 3D KL autoencoder of latent diffusion (MONAI AutoencoderKL, as MAISI
// trains it): encoder -> (mu, log-variance) -> reparameterised sample ->
// decoder. Used by the autoencoder training task (engine/train) and, later,
// by latent caching and generation. Submodule and parameter names mirror
// MONAI's (`encoder.blocks.N...`, `quant_conv_mu.conv.weight`,
// `quant_conv_log_sigma.conv.weight`, `post_quant_conv.conv.weight`,
// `decoder.blocks.N...`) so a MONAI state_dict maps onto named_parameters()
// name for name. Not thread-safe: one module per thread, as any nn::Module.
#pragma once

#include <functional>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <utility>

#include "models/autoencoder_coders.hpp"
#include "config/autoencoder_kl_options.hpp"
#include "models/convolution.hpp"

namespace medsynth {

struct AutoencoderKLOutput {
  at::Tensor reconstruction;  // [B, out_channels, D, H, W]
  at::Tensor z_mu;            // [B, latent_channels, D/f, H/f, W/f]
  at::Tensor z_sigma;         // exp(z_log_var / 2)
  at::Tensor z_log_var;       // clamped to [logvar_min, logvar_max]
};

class AutoencoderKLImpl : public torch::nn::Module {
 public:
  // Validates the options (UsageError naming the field).
  explicit AutoencoderKLImpl(const AutoencoderKLOptions& options);

  // (z_mu, z_log_var); the log-variance is clamped so that exp() of it stays
  // finite: the unclamped value is what made the seed's KL explode.
  std::pair<at::Tensor, at::Tensor> encode(const at::Tensor& x);
  // z_mu + eps * exp(z_log_var / 2), eps ~ N(0, 1) from the global generator
  // (so at::manual_seed makes it repeatable).
  at::Tensor sample(const at::Tensor& z_mu, const at::Tensor& z_log_var);
  at::Tensor decode(const at::Tensor& z);
  // encode -> sample -> decode (training). `noise` (optional) makes eps for
  // a given z_mu; without it eps comes from the global generator.
  AutoencoderKLOutput forward(const at::Tensor& x, const std::function<at::Tensor(const at::Tensor&)>& noise = {});
  // decode(z_mu): deterministic, for validation.
  at::Tensor reconstruct(const at::Tensor& x);

  const AutoencoderKLOptions& options() const { return options_; }

  AutoencoderEncoder encoder{nullptr};
  AutoencoderDecoder decoder{nullptr};
  Convolution quant_conv_mu{nullptr};
  Convolution quant_conv_log_sigma{nullptr};  // MONAI's name; it outputs the log-variance
  Convolution post_quant_conv{nullptr};

 private:
  void check_input(const at::Tensor& x) const;
  AutoencoderKLOptions options_;
};
TORCH_MODULE(AutoencoderKL);

}  // namespace medsynth
