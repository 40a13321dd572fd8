#include "train/loss_scaler.hpp"

#include <ATen/ATen.h>

namespace medsynth {

LossScaler::LossScaler(LossScalerOptions options)
    : enabled_(options.enabled), options_(options), scale_(options.init_scale) {}

at::Tensor LossScaler::scale_loss(const at::Tensor& loss) const { return enabled_ ? loss * scale_ : loss; }

bool gradients_finite(const std::vector<at::Tensor>& params) {
  for (const auto& p : params) {
    const auto& g = p.grad();
    if (g.defined() && !at::isfinite(g).all().item<bool>()) return false;
  }
  return true;
}

bool LossScaler::unscale_and_check(const std::vector<at::Tensor>& params) const {
  if (enabled_) {
    const double inv = 1.0 / scale_;
    for (const auto& p : params)
      if (p.grad().defined()) p.mutable_grad().mul_(inv);
  }
  return gradients_finite(params);
}

void LossScaler::update(bool found_finite) {
  if (!enabled_) return;
  if (!found_finite) {
    scale_ *= options_.backoff_factor;
    growth_tracker_ = 0;
    return;
  }
  if (++growth_tracker_ >= options_.growth_interval) {
    scale_ *= options_.growth_factor;
    growth_tracker_ = 0;
  }
}

void LossScaler::restore(double scale, int growth_tracker) {
  scale_ = scale;
  growth_tracker_ = growth_tracker;
}

}  // namespace medsynth
