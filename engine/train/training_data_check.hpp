// What the trainer checks about a job's data before step 0, for `validate
// JOB --data DIR` (cli/verb_validate.cpp), which must refuse what `train`
// would: the same task's make_data (listing, each file's header, a case's
// contrasts and grids, batches per epoch) and the optimizer steps an epoch
// gives. set_up_training (training_setup.cpp) counts the steps with the same
// function.
#pragma once

#include <string>

#include "config/job_spec.hpp"

namespace medsynth {

class TaskRegistry;

// An epoch of `batches_per_epoch` micro-batches in optimizer steps of
// `accumulation`: the last step takes what is left (training_step.cpp).
// UsageError when the epoch holds no batch.
int optimizer_steps_per_epoch(int batches_per_epoch, int accumulation);

struct TrainingDataCheck {
  int batches_per_epoch = 0;  // of one process (world size 1)
  int steps_per_epoch = 0;
  std::string summary;  // "3 train / 1 val cases of 4 contrasts, 3 batches, 1 optimizer step per epoch"
};

// Builds job.task's Task (its networks too: make_data may need them) and its
// data as one process would train it, then drops both. Throws what training
// would throw before step 0 (DataError naming the file or case, ConfigError,
// UsageError); UsageError for a pipeline, whose stages read the data.
TrainingDataCheck check_training_data(const JobSpec& job, const TaskRegistry& tasks);

}  // namespace medsynth
