// Building a training session (training_session.hpp) before step one, in the
// order the run depends on: the seeds come before the task draws its initial
// weights, the broadcast before the EMA copy and the resume. Called by
// run_training (trainer.cpp).
#pragma once

#include "train/training_session.hpp"

namespace medsynth {

// The rank's log and (rank 0) the event stream, before anything can fail.
void open_run_outputs(TrainingSession& s);

// Everything else up to step one: threads and seeds, device, task, data,
// optimizers, EMA, checkpoint store, resume, gradient sync. Throws
// medsynth::Error subclasses (UsageError for data without a batch; RuntimeError
// when the ranks' loaders disagree on the batches of an epoch).
void set_up_training(TrainingSession& s);

}  // namespace medsynth
