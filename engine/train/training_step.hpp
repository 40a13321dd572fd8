// One optimizer step of the training loop (trainer.cpp): the micro-batches of
// gradient accumulation, one small all-reduce that makes every rank take the
// same decisions, the NaN guard (skip, then roll back), and the update.
#pragma once

#include <map>
#include <string>

#include "train/training_session.hpp"

namespace medsynth {

// One attempt at the optimizer step progress.step.
struct StepAttempt {
  std::map<std::string, double> terms;  // the task's named loss parts, summed over micro-batches
  int micro_batches = 0;                // s.accum, or fewer at the end of an epoch
  double loss = 0;                      // group 0's loss, mean over micro-batches (and ranks)
  bool finite = true;                   // losses and (unscaled) gradients finite on every rank
  bool stop_agreed = false;             // some rank was asked to stop (distributed runs)
  double lr = 0;                        // the learning rate the update used
};

// Forward and backward over the step's micro-batches, the ranks' agreement,
// the loss scaler's check. Gradients are left for apply_update.
StepAttempt accumulate_step(TrainingSession& s);

// The NaN guard after a non-finite attempt: drops the gradients and counts
// the skip; after job.training.nan_max_bad_steps in a row rolls back to the
// last checkpoint (then returns true: the epoch restarts from its position).
// Throws Interrupted when a stop was agreed, RuntimeError after 5 rollbacks.
bool skip_bad_step(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step);

// Clipping, learning rate, optimizer step; then progress.step advances and
// the EMA and the loss window follow.
void apply_update(TrainingSession& s, TrainingLoopState& loop, StepAttempt& step);

}  // namespace medsynth
