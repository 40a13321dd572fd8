// The beta/alpha tables shared by the discrete-time schedulers (DDPM, DDIM,
// Fast-DDPM). Names and defaults follow MONAI's DDPMScheduler so that a MAISI
// or MONAI config reads the same here: num_train_timesteps, beta_schedule
// ("linear_beta" | "scaled_linear_beta"), beta_start, beta_end.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace medsynth {

struct NoiseScheduleOptions {
  int num_train_timesteps = 1000;
  std::string beta_schedule = "scaled_linear_beta";  // MAISI's choice; MONAI's default is linear_beta
  double beta_start = 0.0015;                         // MAISI ddpm
  double beta_end = 0.0195;

  // Throws ConfigError naming `prefix`.field when a value is unusable.
  void validate(const std::string& prefix) const;
};

// alphas_cumprod[t] = prod_{s<=t} (1 - beta_s), float64 on the CPU, length T.
at::Tensor alphas_cumprod(const NoiseScheduleOptions& options);

}  // namespace medsynth
