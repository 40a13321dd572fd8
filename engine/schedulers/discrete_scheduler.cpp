#include "schedulers/discrete_scheduler.hpp"

#include <cmath>

namespace medsynth::diffusion_detail {

DiscreteScheduler::DiscreteScheduler(const SchedulerOptions& options)
    : DiffusionScheduler(options.noise.num_train_timesteps), options_(options), alphas_cumprod_(alphas_cumprod(options.noise)) {}

double DiscreteScheduler::alpha_bar(double t) const {
  if (t < 0) return 1.0;
  return alphas_cumprod_[static_cast<std::int64_t>(std::llround(t))].item<double>();
}

at::Tensor DiscreteScheduler::alpha_bar_like(const at::Tensor& t, const at::Tensor& x) const {
  auto index = t.to(at::kCPU).round().to(at::kLong).clamp(0, num_train_timesteps_ - 1);
  auto a = alphas_cumprod_.index_select(0, index).to(x.device(), x.scalar_type());
  std::vector<std::int64_t> shape(static_cast<std::size_t>(x.dim()), 1);
  shape[0] = x.size(0);
  return a.view(shape);
}

at::Tensor DiscreteScheduler::training_timesteps(const at::Tensor& u, double) const {
  return (u.to(at::kDouble) * num_train_timesteps_).floor().clamp(0, num_train_timesteps_ - 1);
}

std::vector<double> DiscreteScheduler::inference_timesteps(double) const {
  const int n = options_.num_inference_steps;
  const int ratio = num_train_timesteps_ / n;
  std::vector<double> t;
  for (int i = n - 1; i >= 0; --i) t.push_back(static_cast<double>(i * ratio));
  return t;
}

at::Tensor DiscreteScheduler::add_noise(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const {
  auto a = alpha_bar_like(t, x0);
  return a.sqrt() * x0 + (1.0 - a).sqrt() * noise;
}

at::Tensor DiscreteScheduler::training_target(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const {
  if (options_.prediction_type == PredictionType::sample) return x0;
  if (options_.prediction_type == PredictionType::v_prediction) {
    auto a = alpha_bar_like(t, x0);
    return a.sqrt() * noise - (1.0 - a).sqrt() * x0;
  }
  return noise;
}

std::pair<at::Tensor, at::Tensor> DiscreteScheduler::predict(const at::Tensor& out, double t, const at::Tensor& x) const {
  const double a = alpha_bar(t);
  const double sa = std::sqrt(a), sb = std::sqrt(1.0 - a);
  at::Tensor x0, eps;
  if (options_.prediction_type == PredictionType::sample) {
    x0 = out;
    if (options_.clip_sample) x0 = x0.clamp(-options_.clip_sample_value, options_.clip_sample_value);
    eps = (x - sa * x0) / sb;
  } else if (options_.prediction_type == PredictionType::v_prediction) {
    x0 = sa * x - sb * out;
    if (options_.clip_sample) x0 = x0.clamp(-options_.clip_sample_value, options_.clip_sample_value);
    eps = sa * out + sb * x;
  } else {
    eps = out;
    x0 = (x - sb * out) / sa;
    if (options_.clip_sample) {
      x0 = x0.clamp(-options_.clip_sample_value, options_.clip_sample_value);
      eps = (x - sa * x0) / sb;
    }
  }
  return {x0, eps};
}

}  // namespace medsynth::diffusion_detail
