// DDPM (Ho et al.): ancestral sampling with the "fixed small" posterior
// variance, as MONAI's DDPMScheduler does by default. With fewer inference
// steps than training steps the timesteps are spaced T/N apart and the
// posterior is taken between consecutive ones.
#include <ATen/ATen.h>

#include <cmath>

#include "schedulers/discrete_scheduler.hpp"

namespace medsynth::diffusion_detail {
namespace {

class DdpmScheduler : public DiscreteScheduler {
 public:
  using DiscreteScheduler::DiscreteScheduler;
  std::string kind() const override { return "ddpm"; }

  bool stochastic() const override { return true; }

  at::Tensor step(const at::Tensor& out, double t, double t_next, const at::Tensor& x, const at::Tensor& noise) const override {
    auto [x0, eps] = predict(out, t, x);
    const double a = alpha_bar(t), a_prev = alpha_bar(t_next);
    const double alpha = a / a_prev, beta = 1.0 - alpha;
    const double coef_x0 = std::sqrt(a_prev) * beta / (1.0 - a);
    const double coef_xt = std::sqrt(alpha) * (1.0 - a_prev) / (1.0 - a);
    auto mean = coef_x0 * x0 + coef_xt * x;
    if (t_next < 0 || !noise.defined()) return mean;
    const double variance = std::max((1.0 - a_prev) / (1.0 - a) * beta, 1e-20);
    return mean + std::sqrt(variance) * noise;
  }
};

}  // namespace

std::unique_ptr<DiffusionScheduler> make_ddpm_scheduler(const SchedulerOptions& o) { return std::make_unique<DdpmScheduler>(o); }

}  // namespace medsynth::diffusion_detail
