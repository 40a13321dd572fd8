#include "schedulers/noise_schedule.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"

namespace medsynth {

at::Tensor alphas_cumprod(const NoiseScheduleOptions& o) {
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  at::Tensor betas;
  if (o.beta_schedule == BetaSchedule::linear_beta) {
    betas = at::linspace(o.beta_start, o.beta_end, o.num_train_timesteps, opts);
  } else {
    // Stable Diffusion's schedule: linear in sqrt(beta).
    betas = at::linspace(std::sqrt(o.beta_start), std::sqrt(o.beta_end), o.num_train_timesteps, opts).pow(2);
  }
  return at::cumprod(1.0 - betas, 0);
}

}  // namespace medsynth
