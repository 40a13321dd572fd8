#include "schedulers/diffusion_scheduler.hpp"

#include <cmath>

#include "core/error.hpp"

namespace medsynth {
namespace diffusion_detail {
std::unique_ptr<DiffusionScheduler> make_ddpm_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_ddim_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_fast_ddpm_scheduler(const SchedulerOptions&);
std::unique_ptr<DiffusionScheduler> make_rectified_flow_scheduler(const SchedulerOptions&);
}  // namespace diffusion_detail

std::unique_ptr<DiffusionScheduler> make_scheduler(const SchedulerOptions& o) {
  o.validate("scheduler");
  if (o.kind == SchedulerKind::ddpm) return diffusion_detail::make_ddpm_scheduler(o);
  if (o.kind == SchedulerKind::ddim) return diffusion_detail::make_ddim_scheduler(o);
  if (o.kind == SchedulerKind::fast_ddpm) return diffusion_detail::make_fast_ddpm_scheduler(o);
  return diffusion_detail::make_rectified_flow_scheduler(o);
}

std::vector<std::int64_t> fast_ddpm_timesteps(int T, int steps, FastDdpmSchedule schedule) {
  std::vector<std::int64_t> out;
  if (schedule == FastDdpmSchedule::uniform) {
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
