#include "models/autoencoder_kl.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"

namespace medsynth {

namespace {

std::string shape_of(const at::Tensor& x) {
  std::string s = "[";
  for (std::int64_t i = 0; i < x.dim(); ++i) s += (i ? ", " : "") + std::to_string(x.size(i));
  return s + "]";
}

}  // namespace

AutoencoderKLImpl::AutoencoderKLImpl(const AutoencoderKLOptions& options) : options_(options) {
  options_.validate();
  const auto latent = options_.latent_channels;
  // Registration order = MONAI's, so named_parameters() lists in the same order.
  encoder = register_module("encoder", AutoencoderEncoder(options_));
  decoder = register_module("decoder", AutoencoderDecoder(options_));
  quant_conv_mu = register_module("quant_conv_mu", conv1x1(latent, latent));
  quant_conv_log_sigma = register_module("quant_conv_log_sigma", conv1x1(latent, latent));
  post_quant_conv = register_module("post_quant_conv", conv1x1(latent, latent));
}

void AutoencoderKLImpl::check_input(const at::Tensor& x) const {
  // Caught here because a wrong size otherwise surfaces as a shape mismatch
  // deep inside the decoder, or silently as a reconstruction of another size.
  const int f = options_.compression();
  bool ok = x.defined() && x.dim() == 5 && x.size(1) == options_.in_channels;
  for (int d = 2; ok && d < 5; ++d) ok = x.size(d) > 0 && x.size(d) % f == 0;
  if (!ok)
    throw UsageError("AutoencoderKL: input must be [B, " + std::to_string(options_.in_channels) +
                     ", D, H, W] with D, H, W multiples of " + std::to_string(f) + " (got " +
                     (x.defined() ? shape_of(x) : std::string("undefined")) + ")");
}

std::pair<at::Tensor, at::Tensor> AutoencoderKLImpl::encode(const at::Tensor& x) {
  check_input(x);
  const auto h = encoder->forward(x);
  auto z_mu = quant_conv_mu->forward(h);
  auto z_log_var = at::clamp(quant_conv_log_sigma->forward(h), options_.logvar_min, options_.logvar_max);
  return {z_mu, z_log_var};
}

at::Tensor AutoencoderKLImpl::sample(const at::Tensor& z_mu, const at::Tensor& z_log_var) {
  return z_mu + at::randn_like(z_mu) * at::exp(0.5 * z_log_var);
}

at::Tensor AutoencoderKLImpl::decode(const at::Tensor& z) {
  if (!z.defined() || z.dim() != 5 || z.size(1) != options_.latent_channels)
    throw UsageError("AutoencoderKL: latent must be [B, " + std::to_string(options_.latent_channels) +
                     ", d, h, w] (got " + (z.defined() ? shape_of(z) : std::string("undefined")) + ")");
  return decoder->forward(post_quant_conv->forward(z));
}

AutoencoderKLOutput AutoencoderKLImpl::forward(const at::Tensor& x, const std::function<at::Tensor(const at::Tensor&)>& noise) {
  auto [z_mu, z_log_var] = encode(x);
  auto z_sigma = at::exp(0.5 * z_log_var);
  auto z = z_mu + (noise ? noise(z_mu) : at::randn_like(z_mu)) * z_sigma;
  return {decode(z), z_mu, z_sigma, z_log_var};
}

at::Tensor AutoencoderKLImpl::reconstruct(const at::Tensor& x) { return decode(encode(x).first); }

}  // namespace medsynth
