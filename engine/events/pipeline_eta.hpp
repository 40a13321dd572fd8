// A pipeline's remaining time over all its training stages (issue 38: the
// console showed the running stage's own ETA, "ETA 6 s" with a minute left,
// because the diffusion stage had not started). A stage reports its own
// estimate; the stages after it are estimated at the mean time per step this
// process has measured over the pipeline so far (stages and the work between
// them, such as encoding), which is the running stage's own rate in the first
// stage and is corrected as each later stage runs. Stages without steps after
// the last training stage (generate, evaluate) are not in the estimate.
// Thread-safe; one per pipeline, shared by its stages' event writers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

namespace medsynth {

class PipelineEta {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit PipelineEta(Clock clock = {});

  // A stage's progress event: the pipeline's step (stages before it
  // included), the stage's own remaining estimate (empty while unknown) and
  // the steps of the training stages after it. Empty while the stage's is.
  std::optional<double> remaining_s(std::int64_t pipeline_step, std::optional<double> stage_remaining_s,
                                    std::int64_t stage_steps_left, std::int64_t later_steps);

 private:
  Clock clock_;
  std::mutex mutex_;
  std::optional<std::pair<std::chrono::steady_clock::time_point, std::int64_t>> first_;  // time and step first seen
};

}  // namespace medsynth
