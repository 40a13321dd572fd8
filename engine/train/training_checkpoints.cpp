// The session's checkpoints (training_session.hpp): last and best k, written
// by rank 0, and the NaN guard's rollback to the last one, read by every rank.
#include <string>

#include "core/error.hpp"
#include "events/event_writer.hpp"
#include "events/run_logger.hpp"
#include "state/checkpoint_store.hpp"
#include "state/ema_weights.hpp"
#include "state/tensor_file.hpp"
#include "train/task.hpp"
#include "train/training_session.hpp"

namespace medsynth {
namespace {

TensorFile capture(TrainingSession& s) {
  s.progress.scaler_scale = s.scaler.scale();
  s.progress.scaler_growth_tracker = s.scaler.growth_tracker();
  return capture_training_state(s.task->modules(), s.optimizers, s.progress, s.identity, s.ema.get());
}

std::string write_last(TrainingSession& s, const TensorFile& file) {
  std::string path = s.store->save_last(file);
  if (s.events) s.events->checkpoint(path, s.progress.step, CheckpointKind::last);
  return path;
}

}  // namespace

std::string TrainingSession::save_last() { return write_last(*this, capture(*this)); }

void TrainingSession::save_checkpoints(const std::map<std::string, double>& metrics) {
  if (!rank0) return;
  const TensorFile file = capture(*this);
  write_last(*this, file);
  auto it = metrics.find(job.checkpoint.metric);
  if (it == metrics.end()) return;
  if (auto best = store->offer_best(file, it->second, progress.step, progress.epoch))
    if (events) events->checkpoint(*best, progress.step, CheckpointKind::best, job.checkpoint.metric, it->second);
}

void TrainingSession::rollback() {
  const std::string path = options.run.last_checkpoint();  // rank 0 wrote it; every rank reads it
  TensorFile file = read_tensor_file(path);
  const double factor = progress.lr_factor * job.training.nan_lr_factor;
  const int rollbacks = progress.rollbacks + 1;
  progress = restore_training_state(task->modules(), optimizers, file, path, ema.get());
  progress.lr_factor = factor;
  progress.rollbacks = rollbacks;
  scaler.restore(progress.scaler_scale, progress.scaler_growth_tracker);
  warn("rolled back to " + path + " (step " + std::to_string(progress.step) + "), learning rate now x" + std::to_string(factor));
  if (events) events->checkpoint(path, progress.step, CheckpointKind::rollback);
}

}  // namespace medsynth
