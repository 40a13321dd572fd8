// Where the training loop calls its test hooks (training_test_hooks.hpp), for
// one run_training call, on the trainer's thread:
//   begin_step(step)   before the step's micro-batches (every attempt: a skipped step is tried again under its number)
//   loss(group, loss)  on every loss a task computed for that step
//   step_done(step)    after the step's validation and checkpoint
//   stop_after(step)   then, beside the stop signal
// With empty hooks each is a no-op that returns its input.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>

#include "train/training_test_hooks.hpp"

namespace medsynth {

class TrainingTestHookPoints {
 public:
  TrainingTestHookPoints(const TrainingTestHooks& hooks, int rank);

  void begin_step(int step);
  at::Tensor loss(std::size_t group, const at::Tensor& loss) const;
  void step_done(int step) const;
  bool stop_after(int step) const { return step == hooks_.stop_after_step; }

 private:
  TrainingTestHooks hooks_;  // a copy: the NaN steps are used up as they are hit
  int rank_ = 0;
  bool nan_this_step_ = false;
};

}  // namespace medsynth
