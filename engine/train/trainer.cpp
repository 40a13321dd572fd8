#include "train/trainer.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "data/batch_loader.hpp"
#include "data/volume_dataset.hpp"
#include "dist/gradient_sync.hpp"
#include "dist/parameter_check.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"
#include "events/progress_bar.hpp"
#include "events/run_logger.hpp"
#include "events/tensorboard_writer.hpp"
#include "train/autocast_scope.hpp"
#include "train/autoencoder_task.hpp"
#include "train/survival_task.hpp"
#include "train/vqgan_task.hpp"
#include "volume/atomic_file.hpp"
#include "train/checkpoint_store.hpp"
#include "train/device_choice.hpp"
#include "train/ema_weights.hpp"
#include "train/loss_scaler.hpp"
#include "train/lr_schedule.hpp"
#include "train/training_state.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

using Clock = std::chrono::steady_clock;

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

}  // namespace

std::unique_ptr<Task> make_task(const JobSpec& job) {
  if (job.task == "autoencoder") return std::make_unique<AutoencoderTask>(job);
  // The ldm task lives with the diffusion code (diffusion/ldm_task.hpp); its
  // pipeline hands it to the trainer through TrainerOptions::make_task, so
  // train/ does not depend on diffusion/.
  if (job.task == "ldm") throw UsageError("task: 'ldm' is trained by the ldm pipeline (stages autoencoder, encode, diffusion, generate), not alone");
  if (job.task == "vqgan") return std::make_unique<VqganTask>(job);
  if (job.task == "survival") return std::make_unique<SurvivalTask>(job);
  throw UsageError("task: '" + job.task + "' is not supported by this engine yet");
}

namespace {

// The loop's state that is not in the checkpoint format's objects.
struct Session {
  const JobSpec& job;
  const TrainerOptions& options;
  c10::Device device{c10::kCPU};
  std::unique_ptr<EventWriter> events;
  std::unique_ptr<RunLogger> logger;
  std::unique_ptr<ProgressBar> bar;
  std::unique_ptr<Task> task;
  std::vector<OptimizerSlot> optimizers;
  std::unique_ptr<CheckpointStore> store;
  LossScaler scaler;
  TrainingProgress progress;
  CheckpointIdentity identity;
  std::unique_ptr<EmaWeights> ema;
  LrScheduleOptions schedule;
  int total_steps = 0;
  bool rank0 = true;
  DistContext* dist = nullptr;
  std::unique_ptr<GradientSync> sync;

  Session(const JobSpec& j, const TrainerOptions& o) : job(j), options(o) {}

  void info(const std::string& m) { logger->info(m); }
  void warn(const std::string& m) { logger->warn(m); }

  void metric(const std::string& name, double value) {
    if (events) events->metric(progress.step, name, value);
  }

  double current_lr() const { return learning_rate_at(schedule, progress.step) * progress.lr_factor; }

  std::string save_last() {
    progress.scaler_scale = scaler.scale();
    progress.scaler_growth_tracker = scaler.growth_tracker();
    auto file = capture_training_state(*task, optimizers, progress, identity, ema.get());
    std::string path = store->save_last(file);
    if (events) events->checkpoint(path, progress.step, CheckpointKind::last);
    return path;
  }

  void save_checkpoints(const std::map<std::string, double>& metrics) {
    if (!rank0) return;
    progress.scaler_scale = scaler.scale();
    progress.scaler_growth_tracker = scaler.growth_tracker();
    auto file = capture_training_state(*task, optimizers, progress, identity, ema.get());
    std::string path = store->save_last(file);
    if (events) events->checkpoint(path, progress.step, CheckpointKind::last);
    auto it = metrics.find(job.checkpoint.metric);
    if (it != metrics.end()) {
      if (auto best = store->offer_best(file, it->second, progress.step, progress.epoch))
        if (events) events->checkpoint(*best, progress.step, CheckpointKind::best, job.checkpoint.metric, it->second);
    }
  }

  // Every rank validates its share of the held-out volumes; the means are
  // combined weighted by count, so the result equals a one-process validation.
  // `val` is null for a task with its own batch source (it validates its own data).
  std::map<std::string, double> validate(const VolumeDataset* val, int keep_outputs, bool write_outputs) {
    auto started = Clock::now();
    const int rank = dist ? dist->rank() : 0;
    const int world = dist ? dist->world_size() : 1;
    ValidationResult r;
    {
      ScopedEmaWeights averaged(*ema);
      if (val)
        r = task->validate(*val, validation_items(val->size(), job.training.val_max_volumes, rank, world), rank0 ? keep_outputs : 0);
      else
        r = task->validate_own(rank, world, rank0 ? keep_outputs : 0);
    }
    if (dist) r.metrics = reduce_metrics(r);
    for (const auto& [name, value] : r.metrics) metric(name, value);
    progress.last_metrics = r.metrics;
    std::string line = "validation at step " + std::to_string(progress.step) + ":";
    for (const auto& [name, value] : r.metrics) line += " " + name + "=" + std::to_string(value);
    info(line + " (" + std::to_string(std::chrono::duration<double>(Clock::now() - started).count()) + " s)");
    if (rank0) {
      for (const auto& [name, text] : r.files) {
        const std::string path = options.run.output_dir() + "/" + name;
        write_file_atomically(path, "", [&](const std::string& temp) {
          std::ofstream out(temp, std::ios::binary);
          out << text;
          if (!out.flush()) throw RuntimeError(temp + ": write failed");
        });
        if (events) events->artifact(path, "table", progress.step);
      }
    }
    if (write_outputs && rank0) {
      for (const auto& [stem, volume] : r.outputs) {
        const std::string path = options.run.output_dir() + "/" + stem + ".nii.gz";
        write_volume(volume, path);
        if (events) events->artifact(path, "reconstruction", progress.step);
      }
    }
    return r.metrics;
  }

  // Names are the same on every rank (same task); a rank with no volume has
  // none, so rank 0's names (it always has volume 0) are broadcast implicitly
  // by iterating over a fixed list from the task's first result on rank 0.
  std::map<std::string, double> reduce_metrics(const ValidationResult& r) {
    const std::string names_text = dist->share_from_rank0("val-names-" + std::to_string(progress.step), [&] {
      std::string t;
      for (const auto& [name, value] : r.metrics) t += name + "\n";
      return t;
    }());
    std::vector<std::string> names;
    for (std::size_t b = 0, e; (e = names_text.find('\n', b)) != std::string::npos; b = e + 1) names.push_back(names_text.substr(b, e - b));
    std::vector<double> sums;
    for (const auto& name : names) {
      auto it = r.metrics.find(name);
      sums.push_back(it == r.metrics.end() ? 0.0 : it->second * r.count);
    }
    sums.push_back(r.count);
    sums = dist->all_reduce_sum(sums, "validation metrics");
    std::map<std::string, double> out;
    const double count = sums.back();
    for (std::size_t i = 0; i < names.size() && count > 0; ++i) out[names[i]] = sums[i] / count;
    return out;
  }

  void rollback() {
    const std::string path = options.run.checkpoints_dir() + "/last.safetensors";  // rank 0 wrote it; every rank reads it
    TensorFile file = read_tensor_file(path);
    const double factor = progress.lr_factor * job.training.nan_lr_factor;
    const int rollbacks = progress.rollbacks + 1;
    progress = restore_training_state(*task, optimizers, file, path, ema.get());
    progress.lr_factor = factor;
    progress.rollbacks = rollbacks;
    scaler.restore(progress.scaler_scale, progress.scaler_growth_tracker);
    warn("rolled back to " + path + " (step " + std::to_string(progress.step) + "), learning rate now x" + std::to_string(factor));
    if (events) events->checkpoint(path, progress.step, CheckpointKind::rollback);
  }
};

}  // namespace

TrainResult run_training(const JobSpec& job, const TrainerOptions& options) {
  Session s(job, options);
  s.dist = options.dist;
  const int rank = s.dist ? s.dist->rank() : options.rank;
  const int world_size = s.dist ? s.dist->world_size() : options.world_size;
  s.rank0 = rank == 0;
  s.logger = std::make_unique<RunLogger>(RunLoggerOptions{.path = options.run.rank_log(rank),
                                                          .rank = rank,
                                                          .stderr_level = options.quiet ? LogLevel::warn : LogLevel::info});
  if (s.rank0) {
    s.events = std::make_unique<EventWriter>(
        EventWriterOptions{.path = options.run.events_file(), .rank = rank, .echo_stdout = options.json_stdout, .forward = options.forward_events});
    if (job.output.tensorboard) s.events->attach_tensorboard(std::make_shared<TensorBoardWriter>(options.run.tensorboard_dir()));
    s.logger->attach_events(s.events.get());
  }
  const auto started = Clock::now();
  try {
    if (job.training.num_threads > 0) at::set_num_threads(job.training.num_threads);
    at::manual_seed(static_cast<uint64_t>(job.training.base_seed + rank));
    s.device = s.dist ? s.dist->device() : training_device(job.training.device, 0);
    if (job.training.deterministic && s.device.is_cuda()) {
      // On CPU the same seed and thread count already give the same run (the
      // resume test checks it bit for bit); torch's global deterministic mode
      // cost 27% of the CPU step here, so it is only asked for on CUDA, where
      // cuDNN's autotuner and atomics would otherwise vary between runs.
      at::globalContext().setDeterministicCuDNN(true);
      at::globalContext().setBenchmarkCuDNN(false);
      at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
    }

    s.task = options.make_task ? options.make_task(job) : make_task(job);
    s.task->attach_dist(s.dist);
    // Patches of the job's volumes, unless the task brings its own data.
    std::unique_ptr<BatchSource> loader = s.task->make_batch_source(rank, world_size);
    std::optional<VolumeDataset> train_set, val_set;
    if (!loader) {
      train_set.emplace(job.data, "train", job.training.base_seed);
      val_set.emplace(job.data, "val", job.training.base_seed);
      LoaderOptions lo;
      lo.batch_size = job.training.batch_size;
      lo.patch_size = job.data.patch_size;
      lo.random_flip = job.data.random_flip;
      lo.shuffle = true;
      lo.drop_last = job.distributed.drop_last;
      lo.base_seed = static_cast<std::uint64_t>(job.training.base_seed);
      lo.rank = rank;
      lo.world_size = world_size;
      lo.num_workers = job.data.num_workers;
      lo.prefetch = job.data.prefetch;
      loader = std::make_unique<BatchLoader>(*train_set, lo);
    }
    const VolumeDataset* validation_set = val_set ? &*val_set : nullptr;
    const int accum = job.training.gradient_accumulation_steps;
    const int steps_per_epoch = static_cast<int>(loader->batches_per_epoch()) / accum;
    if (steps_per_epoch < 1)
      throw UsageError("training: " + std::to_string(loader->batches_per_epoch()) + " batches per epoch cannot fill one optimizer step of " +
                       std::to_string(accum) + " accumulation steps; lower training.batch_size or gradient_accumulation_steps or add data");
    s.total_steps = job.training.max_steps > 0 ? job.training.max_steps : job.training.epochs * steps_per_epoch;

    s.task->to(s.device);
    // amp as it will run: bf16 autocast on a CPU without native bf16 would be
    // far slower than fp32 (autocast_scope.hpp), so it is fp32 there.
    const bool amp = job.training.amp && autocast_pays_off(s.device.type());
    const at::MemoryFormat memory_format = resolve_memory_format(job.training.memory_format, amp, s.device);
    apply_memory_format(*s.task, memory_format);
    s.task->train_mode(true);
    std::vector<std::string> parameter_names;
    std::vector<at::Tensor> parameters;
    for (const auto& m : s.task->modules()) {
      for (const auto& p : m.module->named_parameters()) {
        parameter_names.push_back(m.name + "." + p.key());
        parameters.push_back(p.value());
      }
      for (const auto& b : m.module->named_buffers()) {
        parameter_names.push_back(m.name + "." + b.key());
        parameters.push_back(b.value());
      }
    }
    if (!options.init_weights.empty()) {
      // Before the broadcast and the EMA copy: both then start from these weights.
      restore_weights(*s.task, read_tensor_file(options.init_weights), options.init_weights);
      s.info("starting from the weights of " + options.init_weights);
    }
    if (s.dist) {
      // DDP's start: every rank begins from rank 0's weights (a fresh init
      // differs per rank seed). Before the EMA copy and the resume, which then
      // agree on every rank too.
      s.dist->broadcast(parameters, 0, "parameter broadcast");
    }
    for (auto& group : s.task->optimizer_groups()) {
      torch::optim::AdamWOptions ao(job.training.lr * group.lr_multiplier);
      ao.betas({job.training.betas[0], job.training.betas[1]}).weight_decay(job.training.weight_decay);
      OptimizerSlot slot{group, nullptr};
      slot.optimizer = std::make_unique<torch::optim::AdamW>(group.parameters, ao);
      s.optimizers.push_back(std::move(slot));
    }
    s.ema = std::make_unique<EmaWeights>(*s.task, job.training.ema_decay);
    s.scaler = LossScaler(LossScalerOptions{.enabled = amp && s.device.is_cuda()});
    s.schedule = {job.training.lr, job.training.warmup_steps, s.total_steps, job.training.lr_schedule, job.training.min_lr_ratio};
    s.identity = {job.task, model_config_hash(job), job_config_hash(job), job_to_yaml(job)};
    // Only rank 0 owns the checkpoint folder (the store sweeps stale temp files
    // when it opens, which must never race rank 0's writes).
    if (s.rank0)
      s.store = std::make_unique<CheckpointStore>(
          CheckpointStoreOptions{options.run.checkpoints_dir(), job.checkpoint.keep_best, job.checkpoint.metric, job.checkpoint.mode,
                                 job.checkpoint.name_prefix});

    if (!options.resume_from.empty()) {
      TensorFile file = read_tensor_file(options.resume_from);
      check_checkpoint_identity(file, options.resume_from, s.identity);
      s.progress = restore_training_state(*s.task, s.optimizers, file, options.resume_from, s.ema.get());
      s.scaler.restore(s.progress.scaler_scale, s.progress.scaler_growth_tracker);
      s.info("resumed from " + options.resume_from + " at step " + std::to_string(s.progress.step));
    }
    if (s.dist) {
      std::vector<std::vector<at::Tensor>> groups;
      for (const auto& slot : s.optimizers) groups.push_back(slot.group.parameters);
      s.sync = std::make_unique<GradientSync>(*s.dist, std::move(groups),
                                              GradientSyncOptions{job.distributed.bucket_cap_mb, job.distributed.overlap});
    }

    const int64_t voxels_per_sample = s.task->voxels_per_sample() > 0
                                          ? s.task->voxels_per_sample()
                                          : static_cast<int64_t>(job.data.patch_size[0]) * job.data.patch_size[1] * job.data.patch_size[2];
    const int64_t voxels_per_batch = static_cast<int64_t>(job.training.batch_size) * voxels_per_sample;
    if (s.events) {
      RunStartedEvent e;
      e.run_dir = options.run.root;
      e.job_name = job.name;
      e.task = job.task;
      e.config_hash = s.identity.config_hash;
      e.world_size = world_size;
      e.effective_batch = static_cast<std::int64_t>(job.training.batch_size) * world_size * accum;
      e.total_steps = s.total_steps;
      e.device = s.device.str();
      e.extra = {{"amp", amp},
                 {"memory_format", memory_format == at::MemoryFormat::ChannelsLast3d ? "channels_last_3d" : "contiguous"},
                 {"threads", at::get_num_threads()},
                 {"train_volumes", train_set ? train_set->size() : loader->item_count()},
                 {"val_volumes", val_set ? val_set->size() : 0},
                 {"resumed_from", options.resume_from},
                 {"init_weights", options.init_weights},
                 {"model_hash", s.identity.model_hash},
                 {"backend", s.dist ? s.dist->backend_name() : std::string("none")},
                 {"gradient_buckets", s.sync ? static_cast<int>(s.sync->bucket_count(0)) : 0},
                 {"batch_per_rank", job.training.batch_size},
                 {"accumulation", accum}};
      s.events->run_started(e);
    }
    if (options.resume_from.empty() && s.rank0) s.save_last();  // the NaN guard's rollback target before the first validation
    s.info("training " + job.task + " on " + s.device.str() + (s.dist ? " as rank " + std::to_string(rank) + " of " + std::to_string(world_size) + " (" + s.dist->backend_name() +
                       (s.dist->peer_address().empty() ? std::string() : " on " + s.dist->peer_address()) + ")"
                    : std::string()) + " for " + std::to_string(s.total_steps) + " steps (" +
           (train_set ? std::to_string(train_set->size()) + " train / " + std::to_string(val_set->size()) + " val volumes, "
                      : std::to_string(loader->item_count()) + " training items on this rank, ") +
           std::to_string(at::get_num_threads()) + " threads)");
    if (job.training.amp && !amp)  // after the run's own first lines
      s.warn("training.amp: this CPU has no native bf16 (no AVX-512/AMX), where bf16 autocast runs many times slower than "
             "fp32; training in fp32 (MEDSYNTH_CPU_BF16=1 forces bf16)");
    if (options.progress_bar && !options.quiet) s.bar = std::make_unique<ProgressBar>();
    if (s.bar) s.logger->attach_progress_bar(s.bar.get());

    TrainResult result;
    std::set<int> pending_nan = options.inject_nan_at_steps;
    const std::vector<std::uint64_t> no_keys;  // the task then draws noise from the rank's generator
    int consecutive_bad = 0;
    double window_loss = 0;
    int window_steps = 0;
    auto window_start = Clock::now();
    bool validated_at_end = false;

    while (s.progress.step < s.total_steps) {
      loader->start_epoch(s.progress.epoch, s.progress.batch_in_epoch);
      bool restart_epoch = false;
      while (s.progress.step < s.total_steps && s.progress.batch_in_epoch + accum <= steps_per_epoch * accum) {
        std::map<std::string, double> terms;
        double step_loss = 0;
        bool finite = true;
        const bool inject = pending_nan.erase(s.progress.step) > 0;
        for (int micro = 0; micro < accum; ++micro) {
          auto batch = loader->next();
          if (!batch) throw RuntimeError("data loader ended early in epoch " + std::to_string(s.progress.epoch));
          at::Tensor images = batch->images.to(s.device).contiguous(memory_format);
          s.task->observe_batch(*batch);
          for (std::size_t g = 0; g < s.optimizers.size(); ++g) {
            if (!s.task->group_active(g, s.progress.step)) continue;
            at::Tensor loss;
            {
              AutocastScope autocast(amp, s.device.type());
              loss = s.task->compute_loss(g, images, job.training.per_sample_noise ? batch->sample_keys : no_keys, s.progress.step, terms);
            }
            if (inject && g == 0) loss = loss * std::nan("");
            const double value = loss.item<double>();
            if (!std::isfinite(value)) finite = false;
            if (g == 0) step_loss += value / accum;
            const bool sync_now = s.sync && micro == accum - 1;  // DDP's no_sync() on the other micro-steps
            if (sync_now) s.sync->prepare(g);
            s.scaler.scale_loss(loss / accum).backward();
            if (sync_now) s.sync->finish(g);
          }
        }
        s.progress.batch_in_epoch += accum;
        // One small all-reduce per step makes every rank take the same
        // decisions: the mean loss, whether any rank saw a non-finite loss, and
        // whether any rank was asked to stop (signals reach ranks at different times).
        bool stop_agreed = false;
        if (s.dist) {
          const int signal_now = options.stop_signal ? options.stop_signal->load() : 0;
          const auto agreed = s.dist->all_reduce_sum({step_loss, finite ? 0.0 : 1.0, signal_now != 0 ? 1.0 : 0.0}, "step agreement");
          step_loss = agreed[0] / world_size;
          finite = agreed[1] == 0;
          stop_agreed = agreed[2] > 0;
        }
        for (std::size_t g = 0; g < s.optimizers.size() && finite; ++g)
          if (s.task->group_active(g, s.progress.step)) finite = s.scaler.unscale_and_check(s.optimizers[g].group.parameters);
        s.scaler.update(finite);
        if (!finite) {
          for (auto& slot : s.optimizers) slot.optimizer->zero_grad();
          ++consecutive_bad;
          ++result.skipped_steps;
          s.warn("non-finite loss or gradients at step " + std::to_string(s.progress.step) + ": step skipped (" +
                 std::to_string(consecutive_bad) + "/" + std::to_string(job.training.nan_max_bad_steps) + ")");
          s.metric("train/skipped_steps", result.skipped_steps);
          if (stop_agreed) {
            const std::string path = s.rank0 ? s.save_last() : std::string();
            throw Interrupted("stopped by signal at step " + std::to_string(s.progress.step) + "; checkpoint " + path);
          }
          if (consecutive_bad >= job.training.nan_max_bad_steps) {
            if (s.progress.rollbacks >= 5) throw RuntimeError("training diverged: non-finite losses persist after 5 rollbacks");
            s.rollback();
            consecutive_bad = 0;
            restart_epoch = true;
            break;
          }
          continue;
        }
        consecutive_bad = 0;
        const double lr = s.current_lr();
        for (std::size_t g = 0; g < s.optimizers.size(); ++g) {
          if (!s.task->group_active(g, s.progress.step)) continue;
          auto& slot = s.optimizers[g];
          if (job.training.grad_clip_norm > 0) torch::nn::utils::clip_grad_norm_(slot.group.parameters, job.training.grad_clip_norm);
          for (auto& pg : slot.optimizer->param_groups()) pg.options().set_lr(lr * slot.group.lr_multiplier);
          slot.optimizer->step();
          slot.optimizer->zero_grad();
        }
        ++s.progress.step;
        s.ema->update(s.progress.step);
        window_loss += step_loss;
        ++window_steps;

        const bool last_step = s.progress.step == s.total_steps;
        if (s.progress.step % job.output.log_every_steps == 0 || last_step) {
          const double seconds = std::chrono::duration<double>(Clock::now() - window_start).count();
          const double mean_loss = window_loss / window_steps;
          s.metric("train/loss", mean_loss);
          for (const auto& [name, value] : terms) s.metric(name, value / accum);
          s.metric("lr", lr);
          // Throughput of the whole run: every rank processes its own batches.
          const double vox_per_s = seconds > 0 ? static_cast<double>(voxels_per_batch) * accum * window_steps * world_size / seconds : 0;
          s.metric("throughput/vox_per_s", vox_per_s);
          const double eta = seconds / window_steps * (s.total_steps - s.progress.step);
          if (s.events)
            s.events->progress(s.progress.step, s.total_steps, s.progress.epoch, (s.total_steps + steps_per_epoch - 1) / steps_per_epoch,
                               seconds > 0 ? static_cast<double>(job.training.batch_size) * accum * window_steps * world_size / seconds : 0, eta);
          result.final_train_loss = mean_loss;
          window_loss = 0;
          window_steps = 0;
          window_start = Clock::now();
        }
        if (s.bar) {
          ProgressState state;
          state.step = s.progress.step;
          state.total_steps = s.total_steps;
          state.epoch = s.progress.epoch;
          state.epochs = (s.total_steps + steps_per_epoch - 1) / steps_per_epoch;
          state.loss = step_loss;
          s.bar->update(state);
        }

        const bool validate_now = (job.training.val_every_steps > 0 && s.progress.step % job.training.val_every_steps == 0) || last_step;
        if (validate_now) {
          auto metrics = s.validate(validation_set, job.output.save_reconstructions, last_step);
          s.save_checkpoints(metrics);
          validated_at_end = last_step;
          window_start = Clock::now();
        } else if (job.checkpoint.every_steps > 0 && s.progress.step % job.checkpoint.every_steps == 0 && s.rank0) {
          s.save_last();
        }
        if (rank == options.test_kill_rank && s.progress.step == options.test_kill_step) std::raise(SIGKILL);
        if (job.distributed.check_parameters_every > 0 && s.dist && s.progress.step % job.distributed.check_parameters_every == 0)
          check_parameters_identical(*s.dist, parameter_names, parameters);
        const int signal = s.dist ? (stop_agreed ? 15 : 0) : options.stop_signal ? options.stop_signal->load() : 0;
        if (signal != 0 || s.progress.step == options.stop_after_step) {
          if (s.bar) s.bar->finish();
          const std::string path = s.rank0 ? s.save_last() : std::string();
          throw Interrupted("stopped" + (signal ? " by signal " + std::to_string(signal) : std::string()) + " at step " +
                            std::to_string(s.progress.step) + "; checkpoint " + path);
        }
      }
      if (restart_epoch) continue;
      if (s.progress.step < s.total_steps) {
        ++s.progress.epoch;
        s.progress.batch_in_epoch = 0;
      }
    }
    if (s.bar) s.bar->finish();
    if (!validated_at_end) {  // resumed at the end, or zero steps left
      auto metrics = s.validate(validation_set, job.output.save_reconstructions, true);
      s.save_checkpoints(metrics);
    }
    result.final_metrics = s.progress.last_metrics;
    result.steps = s.progress.step;
    result.rollbacks = s.progress.rollbacks;
    result.last_checkpoint = options.run.checkpoints_dir() + "/last.safetensors";
    if (s.store && !s.store->best().empty()) result.best_checkpoint = s.store->best().front().path;
    if (s.sync) {
      const auto& st = s.sync->stats();
      s.info("gradient sync: " + std::to_string(st.syncs) + " syncs, " + std::to_string(st.buckets_launched) + " bucket all-reduces (" +
             std::to_string(st.buckets_launched_in_backward) + " launched during backward), " +
             std::to_string(static_cast<double>(st.bytes_reduced) / 1e6) + " MB, exposed wait " + std::to_string(st.exposed_wait_seconds) + " s");
    }
    if (s.dist) s.dist->barrier("end of training");  // nobody leaves while rank 0 still writes (or hosts the store)
    if (s.events) {
      s.events->run_finished("completed", result.final_metrics, std::chrono::duration<double>(Clock::now() - started).count());
    }
    s.info("run finished after " + std::to_string(result.steps) + " steps; checkpoints in " + options.run.checkpoints_dir());
    return result;
  } catch (const Interrupted& e) {
    if (s.events) s.events->run_finished("stopped", s.progress.last_metrics,
                                          std::chrono::duration<double>(Clock::now() - started).count());
    s.logger->warn(e.what());
    throw;
  } catch (const Error& e) {
    if (s.bar) s.bar->finish();
    if (s.events) s.events->run_failed(e.kind(), e.what(), e.kind() == ErrorKind::data ? 3 : e.kind() == ErrorKind::usage ? 2 : 1);
    s.logger->error(e.what());
    throw;
  } catch (const std::exception& e) {
    if (s.bar) s.bar->finish();
    if (s.events) s.events->run_failed(ErrorKind::runtime, e.what(), 1);
    s.logger->error(e.what());
    throw RuntimeError(e.what());
  }
}

}  // namespace medsynth
