#include "train/training_report.hpp"

#include <ATen/Parallel.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <filesystem>

#include "core/file_digest.hpp"
#include "dist/gradient_sync.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"
#include "state/memory_high_water.hpp"
#include "events/progress_bar.hpp"
#include "events/run_logger.hpp"
#include "state/checkpoint_store.hpp"
#include "train/task.hpp"

namespace medsynth {
namespace {

double seconds_since(TrainingClock::time_point t) { return std::chrono::duration<double>(TrainingClock::now() - t).count(); }

int epochs_of_run(const TrainingSession& s) { return (s.total_steps + s.steps_per_epoch - 1) / s.steps_per_epoch; }

void emit_run_started(TrainingSession& s) {
  const JobSpec& job = s.job;
  const DataSummary data = s.data->summary();
  RunStartedEvent e;
  e.run_dir = s.options.run.root;
  e.job_name = job.name;
  e.task = job.task;
  e.config_hash = s.identity.config_hash;
  e.world_size = s.world_size;
  e.effective_batch = static_cast<std::int64_t>(job.training.batch_size) * s.world_size * s.accum;
  e.total_steps = s.total_steps;
  e.device = s.device.str();
  e.extra = {{"amp", s.amp},
             {"memory_format", s.memory_format == at::MemoryFormat::ChannelsLast3d ? "channels_last_3d" : "contiguous"},
             {"threads", at::get_num_threads()},
             {"train_volumes", data.train_items},
             {"val_volumes", data.val_items},
             {"resumed_from", s.options.resume_from},
             {"init_weights", s.options.init_weights},
             {"model_hash", s.identity.model_hash},
             {"backend", s.dist ? s.dist->backend_name() : std::string("none")},
             {"gradient_buckets", s.sync ? static_cast<int>(s.sync->bucket_count(0)) : 0},
             {"batch_per_rank", job.training.batch_size},
             {"accumulation", s.accum}};
  if (!s.init_weights.path.empty()) {
    // What --init-weights loaded, left and ignored, each group by its prefixes (docs/events.md).
    const PartialLoadReport& r = s.init_weights.load;
    e.extra.insert(e.extra.end(), {{"init_weights_format", s.init_weights.format},
                                   {"init_weights_layout", r.layout},
                                   {"init_weights_loaded", r.loaded.names.size()},
                                   {"init_weights_loaded_names", r.loaded.prefixes},
                                   {"init_weights_left_initial", group_lines(r.left_initial)},
                                   {"init_weights_ignored", group_lines(r.ignored)}});
  }
  if (job.loss.perceptual_weight > 0) {
    // The perceptual network is the user's file and not in checkpoints: name
    // it exactly, so that two runs' losses can be compared (docs/vqgan.md).
    const std::string& path = job.loss.perceptual_network;
    e.extra.insert(e.extra.end(), {{"perceptual_network", std::filesystem::absolute(path).string()},
                                   {"perceptual_network_bytes", std::filesystem::file_size(path)},
                                   {"perceptual_network_sha256", file_sha256(path)}});
  }
  s.events->run_started(e);
}

std::string run_description(const TrainingSession& s) {
  std::string ranks;
  if (s.dist)
    ranks = " as rank " + std::to_string(s.rank) + " of " + std::to_string(s.world_size) + " (" + s.dist->backend_name() +
            (s.dist->peer_address().empty() ? std::string() : " on " + s.dist->peer_address()) + ")";
  const std::string data = s.data->summary().text;
  return "training " + s.job.task + " on " + s.device.str() + ranks + " for " + std::to_string(s.total_steps) + " steps (" + data +
         std::to_string(at::get_num_threads()) + " threads)";
}

void log_loss_window(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step) {
  const double seconds = seconds_since(loop.window_start);
  const double mean_loss = loop.window_loss / loop.window_steps;
  s.metric("train/loss", mean_loss);
  for (const auto& [name, value] : step.terms) s.metric(name, value / step.micro_batches);
  s.metric("lr", step.lr);
  // Throughput of the whole run: every rank processes its own batches.
  const double samples = static_cast<double>(s.job.training.batch_size) * loop.window_micro_batches * s.world_size;
  const double vox_per_s =
      seconds > 0 ? static_cast<double>(s.voxels_per_batch) * loop.window_micro_batches * s.world_size / seconds : 0;
  s.metric("throughput/vox_per_s", vox_per_s);
  const double eta = seconds / loop.window_steps * (s.total_steps - s.progress.step);
  if (s.events) s.events->progress(s.progress.step, s.total_steps, s.progress.epoch, epochs_of_run(s), seconds > 0 ? samples / seconds : 0, eta);
  loop.result.final_train_loss = mean_loss;
  loop.window_loss = 0;
  loop.window_steps = 0;
  loop.window_micro_batches = 0;
  loop.window_start = TrainingClock::now();
}

// "1h02m", "4m10s", "12s": a duration as a person reads it in a log.
std::string short_duration(double seconds) {
  const auto whole = static_cast<long long>(seconds + 0.5);
  const long long h = whole / 3600, m = whole % 3600 / 60, sec = whole % 60;
  char text[32];
  if (h > 0)
    std::snprintf(text, sizeof text, "%lldh%02lldm", h, m);
  else if (m > 0)
    std::snprintf(text, sizeof text, "%lldm%02llds", m, sec);
  else
    std::snprintf(text, sizeof text, "%llds", sec);
  return text;
}

// Off a terminal: "step 120/500 (epoch 2/10), loss 0.1234, 1.52 steps/s,
// elapsed 1m19s, ETA 4m10s" at most every progress_every_s, and at the last
// step; the rate over the steps since the previous line.
void report_progress_line(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step) {
  const auto now = TrainingClock::now();
  const double since = std::chrono::duration<double>(now - loop.last_progress_line).count();
  if (since < s.options.progress_every_s && s.progress.step != s.total_steps) return;
  const double rate = since > 0 ? static_cast<double>(s.progress.step - loop.last_progress_step) / since : 0.0;
  char line[256];
  std::snprintf(line, sizeof line, "step %d/%d (epoch %d/%d), loss %.4g, %.3g steps/s, elapsed %s", s.progress.step,
                s.total_steps, s.progress.epoch + 1, epochs_of_run(s), step.loss, rate,
                short_duration(seconds_since(s.started)).c_str());
  std::string text = line;
  if (rate > 0 && s.progress.step < s.total_steps)
    text += ", ETA " + short_duration(static_cast<double>(s.total_steps - s.progress.step) / rate);
  s.info(text);
  loop.last_progress_line = now;
  loop.last_progress_step = s.progress.step;
}

}  // namespace

void announce_run(TrainingSession& s) {
  if (s.events) emit_run_started(s);
  if (s.options.resume_from.empty() && s.rank0) s.save_last();  // the NaN guard's rollback target before the first validation
  s.info(run_description(s));
  if (s.job.loss.perceptual_weight > 0) {
    const std::string& path = s.job.loss.perceptual_network;
    s.info("perceptual loss x " + std::to_string(s.job.loss.perceptual_weight) + " through " +
           std::filesystem::absolute(path).string() + " (" + std::to_string(std::filesystem::file_size(path)) +
           " bytes, sha256 " + file_sha256(path) + ")");
  }
  if (s.job.training.amp && !s.amp)  // after the run's own first lines
    s.warn("training.amp: this CPU has no native bf16 (no AVX-512/AMX), where bf16 autocast runs many times slower than "
           "fp32; training in fp32 (MEDSYNTH_CPU_BF16=1 forces bf16)");
  if (s.options.progress_bar && !s.options.quiet) s.bar = std::make_unique<ProgressBar>();
  if (s.bar) s.logger->attach_progress_bar(s.bar.get());
}

void report_step(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step) {
  if (s.progress.step % s.job.output.log_every_steps == 0 || s.progress.step == s.total_steps) log_loss_window(s, loop, step);
  if (s.rank0 && !s.options.quiet && s.options.progress_every_s > 0 && !(s.bar && s.bar->active()))
    report_progress_line(s, loop, step);
  if (!s.bar) return;
  ProgressState state;
  state.step = s.progress.step;
  state.total_steps = s.total_steps;
  state.epoch = s.progress.epoch;
  state.epochs = epochs_of_run(s);
  state.loss = step.loss;
  s.bar->update(state);
}

TrainResult finish_run(TrainingSession& s, TrainingLoopState& loop) {
  if (s.bar) s.bar->finish();
  if (!loop.validated_at_end) {  // resumed at the end, or zero steps left
    auto metrics = s.validate(s.job.output.save_reconstructions, true);
    s.save_checkpoints(metrics);
  }
  TrainResult result = loop.result;
  result.final_metrics = s.progress.last_metrics;
  result.steps = s.progress.step;
  result.rollbacks = s.progress.rollbacks;
  result.last_checkpoint = s.options.run.last_checkpoint();
  if (s.store && !s.store->best().empty()) result.best_checkpoint = s.store->best().front().path;
  if (s.sync) {
    const auto& st = s.sync->stats();
    s.info("gradient sync: " + std::to_string(st.syncs) + " syncs, " + std::to_string(st.buckets_launched) + " bucket all-reduces (" +
           std::to_string(st.buckets_launched_in_backward) + " launched during backward), " +
           std::to_string(static_cast<double>(st.bytes_reduced) / 1e6) + " MB, exposed wait " + std::to_string(st.exposed_wait_seconds) + " s");
  }
  if (s.dist) s.dist->barrier("end of training");  // nobody leaves while rank 0 still writes (or hosts the store)
  const MemoryHighWater memory = memory_high_water(s.device);
  s.info(describe(memory));
  if (s.events)
    s.events->run_finished("completed", result.final_metrics, seconds_since(s.started), event_fields(memory));
  s.info("run finished after " + std::to_string(result.steps) + " steps; checkpoints in " + s.options.run.checkpoints_dir());
  return result;
}

void report_stopped(TrainingSession& s, const Interrupted& e) {
  if (s.events)
    s.events->run_finished("stopped", s.progress.last_metrics, seconds_since(s.started),
                           event_fields(memory_high_water(s.device)));
  s.logger->warn(e.what());
}

void report_failed(TrainingSession& s, ErrorKind kind, const std::string& what) {
  if (s.bar) s.bar->finish();
  if (s.events) s.events->run_failed(kind, what, kind == ErrorKind::data ? 3 : kind == ErrorKind::usage ? 2 : 1);
  s.logger->error(what);
}

}  // namespace medsynth
