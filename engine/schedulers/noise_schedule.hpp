// The beta/alpha tables shared by the discrete-time schedulers (DDPM, DDIM,
// Fast-DDPM). Names and defaults follow MONAI's DDPMScheduler so that a MAISI
// or MONAI config reads the same here: num_train_timesteps, beta_schedule
// ("linear_beta" | "scaled_linear_beta"), beta_start, beta_end.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "config/diffusion_spec.hpp"

namespace medsynth {


// alphas_cumprod[t] = prod_{s<=t} (1 - beta_s), float64 on the CPU, length T.
at::Tensor alphas_cumprod(const NoiseScheduleOptions& options);

}  // namespace medsynth
