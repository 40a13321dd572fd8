// What the training loop (trainer.cpp) tells the world: the run_started event
// and the first log lines, each step's loss window (metrics, progress event,
// progress bar), and the run's end: completed, stopped or failed. Events go
// out on rank 0 only; every rank logs.
#pragma once

#include <string>

#include "core/error.hpp"
#include "train/training_session.hpp"
#include "train/training_step.hpp"

namespace medsynth {

// After set_up_training: run_started, the NaN guard's first rollback target
// (the last checkpoint at step 0 of a fresh run), the run's description, the
// progress bar.
void announce_run(TrainingSession& s);

// After apply_update: the loss window's metrics every output.log_every_steps
// (and at the last step), and the progress bar.
void report_step(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step);

// The last validation if the loop did not end with one, the result, the
// gradient sync's statistics, run_finished "completed".
TrainResult finish_run(TrainingSession& s, TrainingLoopState& loop);

// run_finished "stopped" (a signal or a stop hook; the checkpoint is written).
void report_stopped(TrainingSession& s, const Interrupted& e);
// run_failed with the exit code the CLI will use.
void report_failed(TrainingSession& s, ErrorKind kind, const std::string& what);

}  // namespace medsynth
