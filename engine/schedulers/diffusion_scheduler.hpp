// One interface over the four noise schedules medsynth trains and samples
// with (docs/latent-diffusion.md):
//   ddpm       MONAI DDPMScheduler: 1000 train steps, ancestral sampling
//   ddim       MONAI DDIMScheduler: the same training, N deterministic steps
//   rflow      MONAI RFlowScheduler as MAISI's maisi3d-rflow uses it:
//              velocity prediction, Euler steps, uniform or logit-normal
//              timesteps, optional resolution-aware timestep shift
//   fast_ddpm  Fast-DDPM: 10 timesteps (uniform or non-uniform) used for
//              training AND sampling
// Schedulers are stateless after construction: the caller passes the
// randomness (uniform numbers for timesteps, Gaussian noise for stochastic
// steps) so that results are reproducible from seeds the caller controls.
// Used by the LDM task (training) and the latent sampler (generation).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/diffusion_spec.hpp"
#include "schedulers/noise_schedule.hpp"

namespace medsynth {


class DiffusionScheduler {
 public:
  virtual ~DiffusionScheduler() = default;
  virtual std::string kind() const = 0;
  int num_train_timesteps() const { return num_train_timesteps_; }

  // Training timesteps for a batch from uniform numbers u in [0, 1) (one per
  // sample). `numel` is the spatial voxel count of one latent (rflow's shift).
  // Returned as float64 values in [0, T).
  virtual at::Tensor training_timesteps(const at::Tensor& u, double numel) const = 0;
  // The noisy input x_t for clean x0 and Gaussian noise at timesteps t ([B]).
  virtual at::Tensor add_noise(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const = 0;
  // What the network is trained to output at x_t (epsilon, x0, v or velocity).
  virtual at::Tensor training_target(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const = 0;

  // The timesteps fed to the network during sampling, in the order used.
  virtual std::vector<double> inference_timesteps(double numel) const = 0;
  // Does step() use its `noise` argument (ancestral sampling)?
  virtual bool stochastic() const = 0;
  // One reverse step from x at timestep t to the next timestep t_next (the
  // following entry of inference_timesteps, or -1 after the last one).
  virtual at::Tensor step(const at::Tensor& model_output, double t, double t_next, const at::Tensor& x,
                          const at::Tensor& noise) const = 0;

 protected:
  explicit DiffusionScheduler(int num_train_timesteps) : num_train_timesteps_(num_train_timesteps) {}
  int num_train_timesteps_;
};

// Validates and builds the scheduler of `options.kind`.
std::unique_ptr<DiffusionScheduler> make_scheduler(const SchedulerOptions& options);

// Fast-DDPM's timestep set (ascending): uniform every T/n, or non-uniform with
// 40 % of the steps in [0, 0.7 T) and 60 % in [0.7 T, T) where the noise level
// changes fastest for the image content.
std::vector<std::int64_t> fast_ddpm_timesteps(int num_train_timesteps, int steps, FastDdpmSchedule schedule);

}  // namespace medsynth
