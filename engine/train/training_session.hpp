// The state of one run_training call (trainer.hpp), shared by the files that
// make up the training core, each with one job:
//   training_setup       builds the session: logs, device, task, data, optimizers, resume, the run_started event
//   training_step        one optimizer step: micro-batches, the ranks' agreement, the NaN guard, the update
//   training_report      the loss window's metrics, the progress bar, the run's end
//   training_checkpoints last/best checkpoints and the NaN guard's rollback
//   training_validation  validation on every rank, reduced, and its files
//   trainer              the loop over epochs and steps that calls them
// Internal to engine/train. One thread (the trainer's) uses a session.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/MemoryFormat.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "train/init_weights.hpp"
#include "train/loss_scaler.hpp"
#include "train/lr_schedule.hpp"
#include "train/trainer.hpp"
#include "train/training_data.hpp"
#include "state/training_state.hpp"
#include "train/training_test_hook_points.hpp"

namespace medsynth {

class CheckpointStore;
class DistContext;
class EmaWeights;
class EventWriter;
class GradientSync;
class ProgressBar;
class RunLogger;
class TensorBoardWriter;
class Task;

using TrainingClock = std::chrono::steady_clock;

struct TrainingSession {
  // What the run is: fixed once training_setup is done.
  const JobSpec& job;
  const TrainerOptions& options;
  int rank = 0;
  int world_size = 1;
  bool rank0 = true;
  DistContext* dist = nullptr;
  c10::Device device{c10::kCPU};
  bool amp = false;                  // as it runs: off on a CPU where bf16 autocast would be slower (autocast_scope.hpp)
  at::MemoryFormat memory_format = at::MemoryFormat::Contiguous;
  int accum = 1;              // micro-batches per optimizer step (the epoch's last step may have fewer)
  int batches_per_epoch = 0;  // this rank's micro-batches per epoch: the same on every rank
  int steps_per_epoch = 0;
  int total_steps = 0;
  std::int64_t voxels_per_batch = 0;
  TrainingClock::time_point started;

  // Where it reports.
  std::unique_ptr<EventWriter> events;  // rank 0 only
  std::shared_ptr<TensorBoardWriter> tensorboard;  // rank 0 with output.tensorboard; events writes its scalars
  std::unique_ptr<RunLogger> logger;
  std::unique_ptr<ProgressBar> bar;

  // What it trains, in the order they are destroyed backwards: the data
  // (loader threads reading datasets the task may own) goes first.
  std::unique_ptr<Task> task;
  std::vector<OptimizerSlot> optimizers;
  std::unique_ptr<EmaWeights> ema;
  LossScaler scaler;
  LrScheduleOptions schedule;
  CheckpointIdentity identity;
  std::unique_ptr<CheckpointStore> store;  // rank 0 only
  TrainingProgress progress;
  InitWeightsReport init_weights;          // what options.init_weights gave; empty path when none
  std::unique_ptr<GradientSync> sync;      // distributed runs only
  std::vector<std::string> parameter_names;  // every parameter and buffer, for the broadcast and the cross-rank check
  std::vector<at::Tensor> parameters;
  std::unique_ptr<TrainingData> data;

  TrainingTestHookPoints hooks;

  TrainingSession(const JobSpec& j, const TrainerOptions& o);
  ~TrainingSession();

  void info(const std::string& message);
  void warn(const std::string& message);
  void metric(const std::string& name, double value);  // at the current step; rank 0 only
  double current_lr() const;
  // The data (loader, datasets) goes before the failure is reported, as a stack unwind would.
  void release_data();

  // training_checkpoints.cpp
  std::string save_last();  // rank 0; returns the path
  void save_checkpoints(const std::map<std::string, double>& metrics);
  void rollback();

  // training_validation.cpp
  std::map<std::string, double> validate(int keep_outputs, bool write_outputs);
};

// What the loop carries from step to step.
struct TrainingLoopState {
  TrainResult result;
  int consecutive_bad = 0;  // non-finite steps in a row (the NaN guard)
  double window_loss = 0;   // the loss window logged every output.log_every_steps
  int window_steps = 0;
  int window_micro_batches = 0;  // the window's micro-batches per rank (throughput)
  TrainingClock::time_point window_start;
  // The last progress line off a terminal (TrainerOptions::progress_every_s).
  TrainingClock::time_point last_progress_line;
  std::int64_t last_progress_step = 0;
  bool validated_at_end = false;
};

}  // namespace medsynth
