// Rectified flow as MONAI's RFlowScheduler and MAISI's maisi3d-rflow use it:
// x_t = (1 - s) x0 + s noise with s = t / T, the network predicts the
// velocity x0 - noise, and sampling takes Euler steps from s = 1 to 0.
// The optional timestep transform shifts s toward noise for latents larger
// than base_img_size_numel (a larger volume needs more noise to hide it).
#include <ATen/ATen.h>
#include <c10/util/Half.h>

#include <cmath>

#include "schedulers/diffusion_scheduler.hpp"

namespace medsynth::diffusion_detail {
namespace {

class RectifiedFlowScheduler : public DiffusionScheduler {
 public:
  explicit RectifiedFlowScheduler(const SchedulerOptions& o) : DiffusionScheduler(o.noise.num_train_timesteps), options_(o) {}
  std::string kind() const override { return "rflow"; }

  at::Tensor training_timesteps(const at::Tensor& u, double numel) const override {
    auto uu = u.to(at::kDouble).clamp(1e-7, 1.0 - 1e-7);
    at::Tensor s = uu;
    if (options_.sample_method == TimestepSampling::logit_normal) {
      auto z = std::sqrt(2.0) * at::erfinv(2.0 * uu - 1.0);  // standard normal from u
      s = at::sigmoid(options_.loc + options_.scale * z);
    }
    return shift(s, numel) * num_train_timesteps_;
  }

  at::Tensor add_noise(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& t) const override {
    auto s = fraction_like(t, x0);
    return (1.0 - s) * x0 + s * noise;
  }

  at::Tensor training_target(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor&) const override { return x0 - noise; }

  std::vector<double> inference_timesteps(double numel) const override {
    const int n = options_.num_inference_steps;
    auto s = at::empty({n}, at::TensorOptions().dtype(at::kDouble));
    for (int i = 0; i < n; ++i) s[i] = 1.0 - static_cast<double>(i) / n;
    auto t = shift(s, numel) * num_train_timesteps_;
    std::vector<double> out(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const double exact = t[i].item<double>();
      // MONAI: np.array(timesteps).astype(np.float16); the UNet sees that value.
      out[static_cast<std::size_t>(i)] =
          options_.monai_timestep_arithmetic ? static_cast<double>(c10::Half(static_cast<float>(exact))) : exact;
    }
    return out;
  }

  bool stochastic() const override { return false; }

  at::Tensor step(const at::Tensor& velocity, double t, double t_next, const at::Tensor& x, const at::Tensor&) const override {
    if (options_.monai_timestep_arithmetic) {
      // MONAI's step(): next_timestep = int(next_timestep), then
      // (timestep - next_timestep) on the float16 timestep, in float16.
      const double next = std::trunc(std::max(t_next, 0.0));
      const double difference = static_cast<double>(c10::Half(static_cast<float>(t - next)));
      return x + velocity * (difference / num_train_timesteps_);
    }
    const double dt = (t - std::max(t_next, 0.0)) / num_train_timesteps_;
    return x + velocity * dt;
  }

 private:
  // s' = r s / (1 + (r - 1) s), r = (numel / base)^(1/3) * transform_scale.
  at::Tensor shift(const at::Tensor& s, double numel) const {
    if (!options_.use_timestep_transform || numel <= 0) return s;
    const double r = std::cbrt(numel / options_.base_img_size_numel) * options_.transform_scale;
    return r * s / (1.0 + (r - 1.0) * s);
  }

  at::Tensor fraction_like(const at::Tensor& t, const at::Tensor& x) const {
    auto s = (t.to(at::kDouble) / num_train_timesteps_).to(x.device(), x.scalar_type());
    std::vector<std::int64_t> shape(static_cast<std::size_t>(x.dim()), 1);
    shape[0] = x.size(0);
    return s.view(shape);
  }

  SchedulerOptions options_;
};

}  // namespace

std::unique_ptr<DiffusionScheduler> make_rectified_flow_scheduler(const SchedulerOptions& o) {
  return std::make_unique<RectifiedFlowScheduler>(o);
}

}  // namespace medsynth::diffusion_detail
