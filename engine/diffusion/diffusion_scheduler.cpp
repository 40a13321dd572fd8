#include "diffusion/diffusion_scheduler.hpp"

#include <cmath>

#include "core/error.hpp"

namespace medsynth {
namespace diffusion_detail {
std::unique_ptr<DiffusionScheduler> make_ddpm_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_ddim_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_fast_ddpm_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_rectified_flow_scheduler(const SchedulerOptions&);
}  // namespace diffusion_detail

void SchedulerOptions::validate(const std::string& prefix) const {
  std::vector<FieldError> errors;
  auto add = [&](const std::string& field, const std::string& message) { errors.push_back({prefix + "." + field, message}); };
  if (kind != "ddpm" && kind != "ddim" && kind != "rflow" && kind != "fast_ddpm")
    add("kind", "must be ddpm, ddim, rflow or fast_ddpm, not '" + kind + "'");
  if (prediction_type != "epsilon" && prediction_type != "sample" && prediction_type != "v_prediction")
    add("prediction_type", "must be epsilon, sample or v_prediction, not '" + prediction_type + "'");
  if (num_inference_steps < 1 || num_inference_steps > noise.num_train_timesteps)
    add("num_inference_steps", "must be between 1 and num_train_timesteps (" + std::to_string(noise.num_train_timesteps) + ")");
  if (!(clip_sample_value > 0)) add("clip_sample_value", "must be positive");
  if (!(ddim_eta >= 0.0 && ddim_eta <= 1.0)) add("ddim_eta", "must be in [0, 1]");
  if (sample_method != "uniform" && sample_method != "logit-normal")
    add("sample_method", "must be uniform or logit-normal, not '" + sample_method + "'");
  if (!(scale > 0)) add("scale", "must be positive");
  if (!(base_img_size_numel >= 1)) add("base_img_size_numel", "must be at least 1");
  if (!(transform_scale > 0)) add("transform_scale", "must be positive");
  if (fast_ddpm_steps < 2 || fast_ddpm_steps > noise.num_train_timesteps) add("fast_ddpm_steps", "must be between 2 and num_train_timesteps");
  if (fast_ddpm_schedule != "uniform" && fast_ddpm_schedule != "non-uniform")
    add("fast_ddpm_schedule", "must be uniform or non-uniform, not '" + fast_ddpm_schedule + "'");
  try {
    noise.validate(prefix);
  } catch (const ConfigError& e) {
    for (const auto& f : e.errors()) errors.push_back(f);
  }
  if (!errors.empty()) throw ConfigError(std::move(errors));
}

std::unique_ptr<DiffusionScheduler> make_scheduler(const SchedulerOptions& o) {
  o.validate("scheduler");
  if (o.kind == "ddpm") return diffusion_detail::make_ddpm_scheduler(o);
  if (o.kind == "ddim") return diffusion_detail::make_ddim_scheduler(o);
  if (o.kind == "fast_ddpm") return diffusion_detail::make_fast_ddpm_scheduler(o);
  return diffusion_detail::make_rectified_flow_scheduler(o);
}

std::vector<std::int64_t> fast_ddpm_timesteps(int T, int steps, const std::string& schedule) {
  std::vector<std::int64_t> out;
  if (schedule == "uniform") {
    const int skip = T / steps;
    for (int i = 0; i < steps; ++i) out.push_back(static_cast<std::int64_t>(i) * skip);
    return out;
  }
  // Fast-DDPM's non-uniform set: 40 % evenly in [0, 0.7 T), 60 % evenly in [0.7 T, T - 1].
  const int first = static_cast<int>(steps * 0.4), second = steps - first;
  const double knee = 0.7 * T - 1.0;
  for (int i = 0; i < first; ++i) out.push_back(static_cast<std::int64_t>(std::floor(knee * i / first)));
  for (int i = 0; i < second; ++i) {
    const double v = second == 1 ? T - 1.0 : knee + (T - 1.0 - knee) * i / (second - 1);
    out.push_back(static_cast<std::int64_t>(std::floor(v)));
  }
  return out;
}

}  // namespace medsynth
