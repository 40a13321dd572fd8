#include "events/pipeline_eta.hpp"

#include <cmath>

namespace medsynth {

PipelineEta::PipelineEta(Clock clock)
    : clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

std::optional<double> PipelineEta::remaining_s(std::int64_t pipeline_step, std::optional<double> stage_remaining_s,
                                               std::int64_t stage_steps_left, std::int64_t later_steps) {
  if (!stage_remaining_s || !std::isfinite(*stage_remaining_s)) return std::nullopt;
  const auto now = clock_();
  std::lock_guard lock(mutex_);
  if (!first_) first_ = {now, pipeline_step};
  if (later_steps <= 0) return stage_remaining_s;
  // Seconds per step: measured over the pipeline once a step has passed in
  // this process, else the running stage's own rate.
  double per_step = stage_steps_left > 0 ? *stage_remaining_s / static_cast<double>(stage_steps_left) : 0.0;
  if (const auto steps = pipeline_step - first_->second; steps > 0)
    per_step = std::chrono::duration<double>(now - first_->first).count() / static_cast<double>(steps);
  return *stage_remaining_s + per_step * static_cast<double>(later_steps);
}

}  // namespace medsynth
