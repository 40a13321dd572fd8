#include "train/lr_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace medsynth {

double learning_rate_at(const LrScheduleOptions& o, int step) {
  if (o.warmup_steps > 0 && step < o.warmup_steps) return o.base_lr * static_cast<double>(step + 1) / o.warmup_steps;
  if (o.kind == "constant") return o.base_lr;
  const int decay_steps = std::max(1, o.total_steps - o.warmup_steps);
  const double progress = std::clamp(static_cast<double>(step - o.warmup_steps) / decay_steps, 0.0, 1.0);
  // PolynomialLR's closed form: the factor at step t of T is (1 - t/T)^power,
  // reaching 0 after the last step (min_lr_ratio is the cosine's floor only).
  if (o.kind == "polynomial") return o.base_lr * std::pow(1.0 - progress, o.power);
  const double min_lr = o.base_lr * o.min_lr_ratio;
  return min_lr + 0.5 * (o.base_lr - min_lr) * (1.0 + std::cos(M_PI * progress));
}

}  // namespace medsynth
