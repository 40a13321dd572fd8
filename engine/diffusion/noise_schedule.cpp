#include "diffusion/noise_schedule.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"

namespace medsynth {

void NoiseScheduleOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  if (num_train_timesteps < 2) errors.push_back({prefix + ".num_train_timesteps", "must be at least 2"});
  if (beta_schedule != "linear_beta" && beta_schedule != "scaled_linear_beta")
    errors.push_back({prefix + ".beta_schedule", "must be linear_beta or scaled_linear_beta, not '" + beta_schedule + "'"});
  if (!(beta_start > 0.0 && beta_start < 1.0)) errors.push_back({prefix + ".beta_start", "must be in (0, 1)"});
  if (!(beta_end > 0.0 && beta_end < 1.0)) errors.push_back({prefix + ".beta_end", "must be in (0, 1)"});
  if (beta_end < beta_start) errors.push_back({prefix + ".beta_end", "must not be below beta_start"});
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

at::Tensor alphas_cumprod(const NoiseScheduleOptions& o) {
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  at::Tensor betas;
  if (o.beta_schedule == "linear_beta") {
    betas = at::linspace(o.beta_start, o.beta_end, o.num_train_timesteps, opts);
  } else {
    // Stable Diffusion's schedule: linear in sqrt(beta).
    betas = at::linspace(std::sqrt(o.beta_start), std::sqrt(o.beta_end), o.num_train_timesteps, opts).pow(2);
  }
  return at::cumprod(1.0 - betas, 0);
}

}  // namespace medsynth
