// Shared part of the discrete-time schedulers (DDPM, DDIM, Fast-DDPM): the
// cumulative alpha table, the forward process q(x_t | x_0) and the conversion
// of a network output (epsilon, sample or v) into predicted x0 and epsilon.
// Private to engine/diffusion.
#pragma once

#include <ATen/ATen.h>

#include "schedulers/diffusion_scheduler.hpp"

namespace medsynth::diffusion_detail {

class DiscreteScheduler : public DiffusionScheduler {
 public:
  explicit DiscreteScheduler(const SchedulerOptions& options);

  // DDPM and DDIM: any of the T timesteps for training; N inference steps
  // spaced T/N apart, from the noisiest (MONAI's set_timesteps). Fast-DDPM overrides both.
  at::Tensor training_timesteps(const at::Tensor& u, double numel) const override;
  std::vector<double> inference_timesteps(double numel) const override;
  at::Tensor add_noise(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const override;
  at::Tensor training_target(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const override;

 protected:
  // alphas_cumprod at integer timestep t; 1 for t < 0 (the clean image).
  double alpha_bar(double t) const;
  // alphas_cumprod at the batch's timesteps, shaped to broadcast over x.
  at::Tensor alpha_bar_like(const at::Tensor& t, const at::Tensor& x) const;
  // (x0, epsilon) predicted from the network output at x_t.
  std::pair<at::Tensor, at::Tensor> predict(const at::Tensor& model_output, double t, const at::Tensor& x) const;

  SchedulerOptions options_;
  at::Tensor alphas_cumprod_;  // float64, CPU
};

}  // namespace medsynth::diffusion_detail
