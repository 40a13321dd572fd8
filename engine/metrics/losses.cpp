#include "metrics/losses.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"

namespace medsynth {

namespace {

constexpr double k_least_squares_slope = 0.05;  // MONAI PatchAdversarialLoss's activation

void require_same_shape(const at::Tensor& a, const at::Tensor& b, const char* what) {
  if (!a.defined() || !b.defined() || a.sizes() != b.sizes())
    throw UsageError(std::string(what) + ": the two tensors must have the same shape");
}

void require_defined(const at::Tensor& t, const char* what) {
  if (!t.defined() || t.numel() == 0) throw UsageError(std::string(what) + ": empty or undefined logits");
}

at::Tensor least_squares(const at::Tensor& logits, double target) {
  const auto d = at::leaky_relu(logits, k_least_squares_slope);
  return at::mean(at::square(d - target));
}

}  // namespace

at::Tensor reconstruction_loss(const at::Tensor& reconstruction, const at::Tensor& target, const std::string& kind) {
  require_same_shape(reconstruction, target, "reconstruction_loss");
  if (kind == "l1") return at::mean(at::abs(reconstruction - target));
  if (kind == "l2") return at::mean(at::square(reconstruction - target));
  if (kind == "l1_window") {
    // Intensities are clipped to the window [0, 1]: a target at 0 (air below
    // -1000 HU) means "at most 0", so any reconstruction <= 0 is right there
    // and only the part above is an error; likewise at 1. Inside, plain L1.
    const auto d = reconstruction - target;
    const auto at_floor = target <= 0.0, at_ceiling = target >= 1.0;
    const auto error = at::where(at_floor, at::relu(d), at::where(at_ceiling, at::relu(-d), at::abs(d)));
    return at::mean(error);
  }
  throw UsageError("loss.recon_loss: must be l1, l2 or l1_window (got \"" + kind + "\")");
}

at::Tensor diffusion_error(const at::Tensor& prediction, const at::Tensor& target, const std::string& kind) {
  require_same_shape(prediction, target, "diffusion_error");
  const auto d = prediction.to(at::kFloat) - target.to(at::kFloat);
  if (kind == "l1") return at::abs(d);
  if (kind == "mse") return at::square(d);
  throw UsageError("ldm.diffusion_loss: must be l1 or mse (got \"" + kind + "\")");
}

RegionContrastiveTerms region_contrastive_terms(const at::Tensor& prediction, const at::Tensor& tumour_free,
                                                const at::Tensor& target, const at::Tensor& region,
                                                const at::Tensor& background, double delta) {
  require_same_shape(prediction, tumour_free, "region_contrastive_terms");
  require_same_shape(prediction, target, "region_contrastive_terms");
  const auto masked_mean = [&](const at::Tensor& a, const at::Tensor& b, const at::Tensor& mask) {
    const auto weights = mask.to(at::kFloat).expand_as(a);
    return (at::abs(a.to(at::kFloat) - b.to(at::kFloat)) * weights).sum() / (weights.gt(0).sum() + 1e-5);
  };
  const auto apart = -masked_mean(prediction, tumour_free, region);
  return {at::relu(apart + delta) - delta, masked_mean(tumour_free, target, background)};
}

at::Tensor kl_loss(const at::Tensor& z_mu, const at::Tensor& z_log_var, double logvar_min, double logvar_max) {
  require_same_shape(z_mu, z_log_var, "kl_loss");
  if (z_mu.dim() < 2) throw UsageError("kl_loss: expected [B, C, ...] latents");
  const auto logvar = at::clamp(z_log_var, logvar_min, logvar_max);
  const auto per_element = at::square(z_mu) + at::exp(logvar) - logvar - 1.0;
  const auto per_sample = 0.5 * per_element.flatten(1).sum(1);
  return per_sample.mean();
}

at::Tensor generator_adversarial_loss(const at::Tensor& d_fake_logits) {
  require_defined(d_fake_logits, "generator_adversarial_loss");
  return least_squares(d_fake_logits, 1.0);
}

at::Tensor discriminator_loss(const at::Tensor& d_real_logits, const at::Tensor& d_fake_logits) {
  require_defined(d_real_logits, "discriminator_loss");
  require_defined(d_fake_logits, "discriminator_loss");
  return 0.5 * (least_squares(d_real_logits, 1.0) + least_squares(d_fake_logits, 0.0));
}

}  // namespace medsynth
