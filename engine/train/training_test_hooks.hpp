// Test-only behaviour of the training loop, kept out of it. Tests
// (tests/engine/train) and the train verb's hidden flags (--inject-nan-at,
// --test-kill-self) fill TrainingTestHooks (TrainerOptions::test_hooks);
// production code leaves it empty, and then every hook point does nothing.
// The loop calls the points (training_test_hook_points.hpp) at fixed places
// of every optimizer step. No LibTorch here: the CLI includes it.
#pragma once

#include <set>

namespace medsynth {

struct TrainingTestHooks {
  std::set<int> inject_nan_at_steps;  // the loss of these optimizer steps becomes NaN (once each per run_training call)
  int stop_after_step = -1;           // behave as if signalled once this step is done
  int kill_rank = -1;                 // this rank SIGKILLs itself after step kill_step, as a crashed node would
  int kill_step = -1;
};

}  // namespace medsynth
