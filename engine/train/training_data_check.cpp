#include "train/training_data_check.hpp"

#include "core/error.hpp"
#include "data/batch_source.hpp"
#include "train/task.hpp"
#include "train/task_registry.hpp"
#include "train/training_data.hpp"

namespace medsynth {

int optimizer_steps_per_epoch(int batches_per_epoch, int accumulation) {
  if (batches_per_epoch < 1)
    throw UsageError("training: the data gives no batch per epoch; lower training.batch_size or add data");
  return (batches_per_epoch + accumulation - 1) / accumulation;
}

TrainingDataCheck check_training_data(const JobSpec& job, const TaskRegistry& tasks) {
  const std::unique_ptr<Task> task = tasks.make_task(job);
  const std::unique_ptr<TrainingData> data = task->make_data(RunShard{});
  TrainingDataCheck check;
  check.batches_per_epoch = data->batches().batches_per_epoch();
  check.steps_per_epoch = optimizer_steps_per_epoch(check.batches_per_epoch, job.training.gradient_accumulation_steps);
  check.summary = data->summary().text + std::to_string(check.batches_per_epoch) + " batches, " +
                  std::to_string(check.steps_per_epoch) + " optimizer step" + (check.steps_per_epoch == 1 ? "" : "s") +
                  " per epoch";
  return check;
}

}  // namespace medsynth
