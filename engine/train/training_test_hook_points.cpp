#include "train/training_test_hook_points.hpp"

#include <csignal>
#include <cmath>

namespace medsynth {

TrainingTestHookPoints::TrainingTestHookPoints(const TrainingTestHooks& hooks, int rank) : hooks_(hooks), rank_(rank) {}

void TrainingTestHookPoints::begin_step(int step) { nan_this_step_ = hooks_.inject_nan_at_steps.erase(step) > 0; }

// The first group's loss carries the step's loss in the events and the NaN guard's decision.
at::Tensor TrainingTestHookPoints::loss(std::size_t group, const at::Tensor& loss) const {
  return nan_this_step_ && group == 0 ? loss * std::nan("") : loss;
}

void TrainingTestHookPoints::step_done(int step) const {
  if (rank_ == hooks_.kill_rank && step == hooks_.kill_step) std::raise(SIGKILL);
}

}  // namespace medsynth
