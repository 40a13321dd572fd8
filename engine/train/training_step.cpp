#include "train/training_step.hpp"

#include <torch/nn/utils/clip_grad.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "dist/gradient_sync.hpp"
#include "dist/process_group.hpp"
#include "events/run_logger.hpp"
#include "train/autocast_scope.hpp"
#include "state/ema_weights.hpp"
#include "train/task.hpp"

namespace medsynth {
namespace {

// torch.optim.Adam's weight decay: grad += weight_decay x param, after
// clipping (torch clips the gradient the optimizer then sees).
void add_l2_to_gradients(const std::vector<at::Tensor>& parameters, double weight_decay) {
  if (weight_decay == 0) return;
  at::NoGradGuard no_grad;
  for (const auto& p : parameters)
    if (p.grad().defined()) p.mutable_grad().add_(p.detach(), weight_decay);
}

void accumulate_micro_batch(TrainingSession& s, int micro, StepAttempt& step) {
  const int micros = step.micro_batches;
  static const std::vector<std::uint64_t> no_keys;  // the task then draws noise from the rank's generator
  auto batch = s.data->batches().next();
  if (!batch) throw RuntimeError("data loader ended early in epoch " + std::to_string(s.progress.epoch));
  const at::Tensor images = batch->images.to(s.device).contiguous(s.memory_format);
  const StepBatch step_batch{images, s.job.training.per_sample_noise ? batch->sample_keys : no_keys, batch->labels,
                             batch->sample_keys};
  for (std::size_t g = 0; g < s.optimizers.size(); ++g) {
    if (!s.task->group_active(g, s.progress.step)) continue;
    at::Tensor loss;
    {
      AutocastScope autocast(s.amp, s.device.type());
      loss = s.task->compute_loss(g, step_batch, s.progress.step, step.terms);
    }
    loss = s.hooks.loss(g, loss);
    const double value = loss.item<double>();
    if (!std::isfinite(value)) step.finite = false;
    if (g == 0) step.loss += value / micros;
    const bool sync_now = s.sync && micro == micros - 1;  // DDP's no_sync() on the other micro-steps
    if (sync_now) s.sync->prepare(g);
    s.scaler.scale_loss(loss / micros).backward();
    if (sync_now) s.sync->finish(g);
  }
}

// One small all-reduce per step makes every rank take the same decisions: the
// mean loss, whether any rank saw a non-finite loss, and whether any rank was
// asked to stop (signals reach ranks at different times).
void agree_across_ranks(TrainingSession& s, StepAttempt& step) {
  if (!s.dist) return;
  const int signal_now = s.options.stop_signal ? s.options.stop_signal->load() : 0;
  const auto agreed = s.dist->all_reduce_sum({step.loss, step.finite ? 0.0 : 1.0, signal_now != 0 ? 1.0 : 0.0}, "step agreement");
  step.loss = agreed[0] / s.world_size;
  step.finite = agreed[1] == 0;
  step.stop_agreed = agreed[2] > 0;
}

}  // namespace

StepAttempt accumulate_step(TrainingSession& s) {
  StepAttempt step;
  s.hooks.begin_step(s.progress.step);
  // The epoch's last step takes the micro-batches that are left, as
  // Lightning does; each loss divided by their count, so that the gradient
  // is their mean as a full step's is. Every rank has as many batches
  // (training_setup's make_data), so they agree on the count and sync together.
  step.micro_batches = std::min(s.accum, s.batches_per_epoch - s.progress.batch_in_epoch);
  for (int micro = 0; micro < step.micro_batches; ++micro) accumulate_micro_batch(s, micro, step);
  s.progress.batch_in_epoch += step.micro_batches;
  agree_across_ranks(s, step);
  for (std::size_t g = 0; g < s.optimizers.size() && step.finite; ++g)
    if (s.task->group_active(g, s.progress.step)) step.finite = s.scaler.unscale_and_check(s.optimizers[g].group.parameters);
  s.scaler.update(step.finite);
  return step;
}

bool skip_bad_step(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step) {
  for (auto& slot : s.optimizers) slot.optimizer->zero_grad();
  ++loop.consecutive_bad;
  ++loop.result.skipped_steps;
  const int max_bad = s.job.training.nan_max_bad_steps;
  s.warn("non-finite loss or gradients at step " + std::to_string(s.progress.step) + ": step skipped (" + std::to_string(loop.consecutive_bad) +
         "/" + std::to_string(max_bad) + ")");
  s.metric("train/skipped_steps", loop.result.skipped_steps);
  if (step.stop_agreed) {
    const std::string path = s.rank0 ? s.save_last() : std::string();
    throw Interrupted("stopped by signal at step " + std::to_string(s.progress.step) + "; checkpoint " + path);
  }
  if (loop.consecutive_bad < max_bad) return false;
  if (s.progress.rollbacks >= 5) throw RuntimeError("training diverged: non-finite losses persist after 5 rollbacks");
  s.rollback();
  loop.consecutive_bad = 0;
  return true;
}

void apply_update(TrainingSession& s, TrainingLoopState& loop, StepAttempt& step) {
  loop.consecutive_bad = 0;
  step.lr = s.current_lr();
  for (std::size_t g = 0; g < s.optimizers.size(); ++g) {
    if (!s.task->group_active(g, s.progress.step)) continue;
    auto& slot = s.optimizers[g];
    if (s.job.training.grad_clip_norm > 0) torch::nn::utils::clip_grad_norm_(slot.group.parameters, s.job.training.grad_clip_norm);
    if (s.job.training.optimizer == "adam") add_l2_to_gradients(slot.group.parameters, s.job.training.weight_decay);
    for (auto& pg : slot.optimizer->param_groups()) pg.options().set_lr(step.lr * slot.group.lr_multiplier);
    slot.optimizer->step();
    slot.optimizer->zero_grad();
  }
  ++s.progress.step;
  s.ema->update(s.progress.step);
  loop.window_loss += step.loss;
  ++loop.window_steps;
  loop.window_micro_batches += step.micro_batches;
}

}  // namespace medsynth
