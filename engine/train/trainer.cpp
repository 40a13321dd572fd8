// run_training: the loop over epochs and optimizer steps. Building the run,
// the step itself, checkpoints, validation and reporting live in their own
// files (training_session.hpp lists them); this file says in what order they run.
#include "train/trainer.hpp"

#include "core/error.hpp"
#include "dist/parameter_check.hpp"
#include "dist/process_group.hpp"
#include "events/progress_bar.hpp"
#include "train/training_report.hpp"
#include "train/training_session.hpp"
#include "train/training_setup.hpp"
#include "train/training_step.hpp"

namespace medsynth {

namespace {

// After a step's update and report: validation and checkpoints when due, the
// test hooks, the cross-rank parameter check, and a stop (signal or hook),
// which writes the last checkpoint and throws Interrupted.
void end_step(TrainingSession& s, TrainingLoopState& loop, const StepAttempt& step) {
  const JobSpec& job = s.job;
  const int done = s.progress.step;
  const bool last_step = done == s.total_steps;
  if ((job.training.val_every_steps > 0 && done % job.training.val_every_steps == 0) || last_step) {
    auto metrics = s.validate(job.output.save_reconstructions, last_step);
    s.save_checkpoints(metrics);
    loop.validated_at_end = last_step;
    loop.window_start = TrainingClock::now();
  } else if (job.checkpoint.every_steps > 0 && done % job.checkpoint.every_steps == 0 && s.rank0) {
    s.save_last();
  }
  s.hooks.step_done(done);
  if (job.distributed.check_parameters_every > 0 && s.dist && done % job.distributed.check_parameters_every == 0)
    check_parameters_identical(*s.dist, s.parameter_names, s.parameters);
  const int signal = s.dist ? (step.stop_agreed ? 15 : 0) : s.options.stop_signal ? s.options.stop_signal->load() : 0;
  if (signal == 0 && !s.hooks.stop_after(done)) return;
  if (s.bar) s.bar->finish();
  const std::string path = s.rank0 ? s.save_last() : std::string();
  throw Interrupted("stopped" + (signal ? " by signal " + std::to_string(signal) : std::string()) + " at step " + std::to_string(done) +
                    "; checkpoint " + path);
}

// The rest of the current epoch from progress's position; false when the NaN
// guard rolled back (the caller starts over from the restored position).
bool train_epoch(TrainingSession& s, TrainingLoopState& loop) {
  s.data->batches().start_epoch(s.progress.epoch, s.progress.batch_in_epoch);
  while (s.progress.step < s.total_steps && s.progress.batch_in_epoch < s.batches_per_epoch) {
    StepAttempt step = accumulate_step(s);
    if (!step.finite) {
      if (skip_bad_step(s, loop, step)) return false;
      continue;
    }
    apply_update(s, loop, step);
    report_step(s, loop, step);
    end_step(s, loop, step);
  }
  return true;
}

TrainResult train(TrainingSession& s) {
  set_up_training(s);
  announce_run(s);
  TrainingLoopState loop;
  loop.window_start = loop.last_progress_line = TrainingClock::now();
  loop.last_progress_step = s.progress.step;
  while (s.progress.step < s.total_steps) {
    if (!train_epoch(s, loop)) continue;
    if (s.progress.step < s.total_steps) {
      ++s.progress.epoch;
      s.progress.batch_in_epoch = 0;
    }
  }
  return finish_run(s, loop);
}

}  // namespace

TrainResult run_training(const JobSpec& job, const TrainerOptions& options) {
  TrainingSession s(job, options);
  open_run_outputs(s);
  s.started = TrainingClock::now();
  try {
    return train(s);
  } catch (const Interrupted& e) {
    s.release_data();
    report_stopped(s, e);
    throw;
  } catch (const Error& e) {
    s.release_data();
    report_failed(s, e.kind(), e.what());
    throw;
  } catch (const std::exception& e) {
    s.release_data();
    report_failed(s, ErrorKind::runtime, e.what());
    throw RuntimeError(e.what());
  }
}

}  // namespace medsynth
