// DDIM (Song et al.) and Fast-DDPM. Both use the generalised DDIM update
// between two timesteps (eta 0: deterministic); they differ in which
// timesteps exist: DDIM spaces N inference steps T/N apart over a model
// trained on all T, Fast-DDPM trains and samples on the same 10 timesteps.
#include <ATen/ATen.h>

#include <cmath>

#include "schedulers/discrete_scheduler.hpp"

namespace medsynth::diffusion_detail {
namespace {

class DdimScheduler : public DiscreteScheduler {
 public:
  using DiscreteScheduler::DiscreteScheduler;
  std::string kind() const override { return "ddim"; }

  bool stochastic() const override { return options_.ddim_eta > 0.0; }

  at::Tensor step(const at::Tensor& out, double t, double t_next, const at::Tensor& x, const at::Tensor& noise) const override {
    auto [x0, eps] = predict(out, t, x);
    const double a = alpha_bar(t), a_prev = alpha_bar(t_next);
    // sigma_t of the DDIM paper (eq. 16), scaled by eta.
    const double sigma = options_.ddim_eta * std::sqrt((1.0 - a_prev) / (1.0 - a) * (1.0 - a / a_prev));
    auto next = std::sqrt(a_prev) * x0 + std::sqrt(std::max(1.0 - a_prev - sigma * sigma, 0.0)) * eps;
    if (sigma > 0.0 && t_next >= 0 && noise.defined()) next = next + sigma * noise;
    return next;
  }
};

class FastDdpmScheduler : public DdimScheduler {
 public:
  explicit FastDdpmScheduler(const SchedulerOptions& o)
      : DdimScheduler(o), steps_(fast_ddpm_timesteps(o.noise.num_train_timesteps, o.fast_ddpm_steps, o.fast_ddpm_schedule)) {}
  std::string kind() const override { return "fast_ddpm"; }

  at::Tensor training_timesteps(const at::Tensor& u, double) const override {
    auto table = at::tensor(steps_, at::TensorOptions().dtype(at::kLong));
    auto index = (u.to(at::kDouble) * static_cast<double>(steps_.size())).floor().to(at::kLong).clamp(0, static_cast<std::int64_t>(steps_.size()) - 1);
    return table.index_select(0, index).to(at::kDouble);
  }

  std::vector<double> inference_timesteps(double) const override { return {steps_.rbegin(), steps_.rend()}; }

 private:
  std::vector<std::int64_t> steps_;
};

}  // namespace

std::unique_ptr<DiffusionScheduler> make_ddim_scheduler(const SchedulerOptions& o) { return std::make_unique<DdimScheduler>(o); }
std::unique_ptr<DiffusionScheduler> make_fast_ddpm_scheduler(const SchedulerOptions& o) { return std::make_unique<FastDdpmScheduler>(o); }

}  // namespace medsynth::diffusion_detail
