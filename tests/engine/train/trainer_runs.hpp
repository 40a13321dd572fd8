// Runs of the trainer that several tests compare: a run directory for a job,
// and a straight run beside one stopped and resumed (the CPU trainer tests and
// their CUDA mirrors in tests/engine/cuda).
#pragma once

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "contract/run_directory.hpp"
#include "state/tensor_file.hpp"
#include "train/trainer.hpp"
#include "volume/atomic_file.hpp"
#include "engine/train/event_log.hpp"

namespace medsynth::test {

inline TrainerOptions options_for(const JobSpec& job) {
  TrainerOptions o;
  o.run = create_run_directory(job.output.runs_dir, job.name);
  write_string_atomically(o.run.job_file(), job_to_yaml(job));
  o.progress_bar = false;
  o.quiet = true;
  return o;
}

struct StraightAndResumed {
  TrainerOptions straight;  // trained to the end in one go
  TrainerOptions resumed;   // stopped after `stop_after_step`, then resumed from its last checkpoint
};

inline StraightAndResumed train_straight_and_resumed(const JobSpec& job, int stop_after_step) {
  StraightAndResumed runs{options_for(job), options_for(job)};
  run_training(job, runs.straight);
  runs.resumed.test_hooks.stop_after_step = stop_after_step;
  EXPECT_THROW(run_training(job, runs.resumed), Interrupted);
  runs.resumed.test_hooks.stop_after_step = -1;
  runs.resumed.resume_from = runs.resumed.run.checkpoints_dir() + "/last.safetensors";
  run_training(job, runs.resumed);
  return runs;
}

// Every model, optimizer and weight-average tensor of two checkpoints equal, bit for bit.
inline void expect_same_model(const std::string& a, const std::string& b) {
  TensorFile fa = read_tensor_file(a), fb = read_tensor_file(b);
  int compared = 0;
  for (const auto& [name, t] : fa.tensors) {
    if (name.rfind("model.", 0) != 0 && name.rfind("optim.", 0) != 0 && name.rfind("ema.", 0) != 0) continue;
    ASSERT_TRUE(fb.tensors.count(name)) << name;
    EXPECT_TRUE(at::equal(t, fb.tensors.at(name))) << name << " differs";
    ++compared;
  }
  EXPECT_GT(compared, 10);
}

// The same train/loss at the same steps in two runs' event streams (==, not near).
inline void expect_same_losses(const TrainerOptions& a, const TrainerOptions& b) {
  const auto la = metric_series(read_events(a.run.events_file()), "train/loss");
  const auto lb = metric_series(read_events(b.run.events_file()), "train/loss");
  ASSERT_EQ(la.size(), lb.size());
  for (std::size_t i = 0; i < la.size(); ++i) {
    EXPECT_EQ(la[i].first, lb[i].first);
    EXPECT_EQ(la[i].second, lb[i].second) << "loss at step " << la[i].first;
  }
}

}  // namespace medsynth::test
