#include "train/training_setup.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/optim/adamw.h>

#include <cstdlib>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "dist/gradient_sync.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"
#include "events/run_logger.hpp"
#include "events/tensorboard_writer.hpp"
#include "train/autocast_scope.hpp"
#include "train/fused_adamw.hpp"
#include "train/init_weights.hpp"
#include "state/checkpoint_store.hpp"
#include "state/device_choice.hpp"
#include "state/ema_weights.hpp"
#include "train/task.hpp"
#include "train/task_registry.hpp"
#include "train/training_data_check.hpp"
#include "train/training_tasks.hpp"

namespace medsynth {
namespace {

// The layout measured faster in docs/performance.md for this device and precision.
at::MemoryFormat resolve_memory_format(const std::string& requested, bool amp, const c10::Device& device) {
  if (requested == "channels_last_3d") return at::MemoryFormat::ChannelsLast3d;
  if (requested == "contiguous" || device.is_cuda() || amp) return at::MemoryFormat::Contiguous;
  return at::MemoryFormat::ChannelsLast3d;
}

void apply_memory_format(Task& task, at::MemoryFormat format) {
  if (format == at::MemoryFormat::Contiguous) return;
  for (const auto& m : task.modules())
    for (auto& p : m.module->parameters())
      if (p.dim() == 5) p.set_data(p.data().contiguous(format));
}

std::unique_ptr<Task> make_session_task(const TrainingSession& s) {
  if (s.options.make_task) return s.options.make_task(s.job);
  return (s.options.tasks ? *s.options.tasks : training_tasks()).make_task(s.job);
}

void seed_and_choose_device(TrainingSession& s) {
  const TrainingSpec& training = s.job.training;
  if (training.num_threads > 0) at::set_num_threads(training.num_threads);
  at::manual_seed(static_cast<uint64_t>(training.base_seed + s.rank));
  s.device = s.dist ? s.dist->device() : training_device(training.device, 0);
  if (training.deterministic && s.device.is_cuda()) {
    // On CPU the same seed and thread count already give the same run (the
    // resume test checks it bit for bit); torch's global deterministic mode
    // cost 27% of the CPU step here, so it is only asked for on CUDA, where
    // cuDNN's autotuner and atomics would otherwise vary between runs.
    // cuBLAS is deterministic only with a fixed workspace (PyTorch's
    // "reproducibility" notes); read when its first handle is created,
    // which is after this point. A user's own setting wins.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    at::globalContext().setDeterministicCuDNN(true);
    at::globalContext().setBenchmarkCuDNN(false);
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
  }
}

// Ranks that disagree on the batches of an epoch would step apart and wait
// on each other's gradients for ever. The loaders pad every rank's share to
// one length (DistributedSampler's rule) or agree on the least; this holds
// them to it: the sums of b and b^2 match world x b only when all b are equal.
void agree_on_batches_per_epoch(TrainingSession& s) {
  if (!s.dist) return;
  const double b = s.batches_per_epoch;
  const auto sums = s.dist->all_reduce_sum({b, b * b}, "batches per epoch");
  if (sums[0] != s.world_size * b || sums[1] != s.world_size * b * b)
    throw RuntimeError("training: the ranks' data loaders give different numbers of batches per epoch (rank " +
                       std::to_string(s.rank) + ": " + std::to_string(s.batches_per_epoch) + ", mean " +
                       std::to_string(sums[0] / s.world_size) + ")");
}

// The task's data for this rank; then the length of the run.
void make_data(TrainingSession& s) {
  const JobSpec& job = s.job;
  s.data = s.task->make_data(RunShard{s.rank, s.world_size, s.dist});
  s.batches_per_epoch = s.data->batches().batches_per_epoch();
  agree_on_batches_per_epoch(s);
  s.accum = job.training.gradient_accumulation_steps;
  s.steps_per_epoch = optimizer_steps_per_epoch(s.batches_per_epoch, s.accum);
  s.total_steps = job.training.max_steps > 0 ? job.training.max_steps : job.training.epochs * s.steps_per_epoch;
}

void place_model(TrainingSession& s) {
  s.task->to(s.device);
  // amp as it will run: bf16 autocast on a CPU without native bf16 would be
  // far slower than fp32 (autocast_scope.hpp), so it is fp32 there.
  s.amp = s.job.training.amp && autocast_pays_off(s.device.type());
  s.memory_format = resolve_memory_format(s.job.training.memory_format, s.amp, s.device);
  apply_memory_format(*s.task, s.memory_format);
  s.task->train_mode(true);
  for (const auto& m : s.task->modules()) {
    for (const auto& p : m.module->named_parameters()) {
      s.parameter_names.push_back(m.name + "." + p.key());
      s.parameters.push_back(p.value());
    }
    for (const auto& b : m.module->named_buffers()) {
      s.parameter_names.push_back(m.name + "." + b.key());
      s.parameters.push_back(b.value());
    }
  }
}

// Before the broadcast and the EMA copy: both then start from these weights.
void load_start_weights(TrainingSession& s) {
  if (!s.options.init_weights.empty()) {
    s.init_weights = load_init_weights(s.task->modules(), s.options.init_weights);
    s.info(describe(s.init_weights));
  }
  // DDP's start: every rank begins from rank 0's weights (a fresh init
  // differs per rank seed). Before the EMA copy and the resume, which then
  // agree on every rank too.
  if (s.dist) s.dist->broadcast(s.parameters, 0, "parameter broadcast");
}

void make_optimizers(TrainingSession& s) {
  const TrainingSpec& training = s.job.training;
  for (auto& group : s.task->optimizer_groups()) {
    torch::optim::AdamWOptions ao(training.lr * group.lr_multiplier);
    // adam's weight decay is added to the gradient before the step
    // (apply_update); AdamW with no decay of its own is then torch's Adam
    // step for step, and the checkpoint's optimizer state stays one kind.
    ao.betas({training.betas[0], training.betas[1]})
        .weight_decay(training.optimizer == "adam" ? 0.0 : training.weight_decay);
    OptimizerSlot slot{group, nullptr};
    if (training.fused_optimizer)
      slot.optimizer = std::make_unique<FusedAdamW>(group.parameters, ao);
    else
      slot.optimizer = std::make_unique<torch::optim::AdamW>(group.parameters, ao);
    s.optimizers.push_back(std::move(slot));
  }
  s.ema = std::make_unique<EmaWeights>(s.task->modules(), training.ema_decay);
  s.scaler = LossScaler(LossScalerOptions{.enabled = s.amp && s.device.is_cuda()});
  s.schedule = {training.lr,          training.warmup_steps, s.total_steps,
                training.lr_schedule, training.min_lr_ratio, training.lr_power};
}

void open_checkpoints(TrainingSession& s) {
  const JobSpec& job = s.job;
  s.identity = {job.task, model_config_hash(job), job_config_hash(job), job_to_yaml(job)};
  // Only rank 0 owns the checkpoint folder (the store sweeps stale temp files
  // when it opens, which must never race rank 0's writes).
  if (s.rank0)
    s.store = std::make_unique<CheckpointStore>(CheckpointStoreOptions{s.options.run.checkpoints_dir(), job.checkpoint.keep_best,
                                                                       job.checkpoint.metric, job.checkpoint.mode, job.checkpoint.name_prefix});
  const std::string& from = s.options.resume_from;
  if (from.empty()) return;
  TensorFile file = read_tensor_file(from);
  check_checkpoint_identity(file, from, s.identity);
  s.progress = restore_training_state(s.task->modules(), s.optimizers, file, from, s.ema.get());
  s.scaler.restore(s.progress.scaler_scale, s.progress.scaler_growth_tracker);
  s.info("resumed from " + from + " at step " + std::to_string(s.progress.step));
}

void make_gradient_sync(TrainingSession& s) {
  if (!s.dist) return;
  std::vector<std::vector<at::Tensor>> groups;
  for (const auto& slot : s.optimizers) groups.push_back(slot.group.parameters);
  s.sync = std::make_unique<GradientSync>(*s.dist, std::move(groups),
                                          GradientSyncOptions{s.job.distributed.bucket_cap_mb, s.job.distributed.overlap});
}

}  // namespace

void open_run_outputs(TrainingSession& s) {
  const TrainerOptions& o = s.options;
  s.logger = std::make_unique<RunLogger>(
      RunLoggerOptions{.path = o.run.rank_log(s.rank), .rank = s.rank, .stderr_level = o.quiet ? LogLevel::warn : LogLevel::info});
  if (!s.rank0) return;
  s.events = std::make_unique<EventWriter>(
      EventWriterOptions{.path = o.run.events_file(), .rank = s.rank, .echo_stdout = o.json_stdout, .forward = o.forward_events});
  if (s.job.output.tensorboard) {
    s.tensorboard = std::make_shared<TensorBoardWriter>(o.run.tensorboard_dir());
    s.events->attach_tensorboard(s.tensorboard);
  }
  s.logger->attach_events(s.events.get());
}

void set_up_training(TrainingSession& s) {
  seed_and_choose_device(s);
  s.task = make_session_task(s);
  make_data(s);
  place_model(s);
  load_start_weights(s);
  make_optimizers(s);
  open_checkpoints(s);
  make_gradient_sync(s);
  s.voxels_per_batch = static_cast<int64_t>(s.job.training.batch_size) * s.data->voxels_per_sample();
}

}  // namespace medsynth
