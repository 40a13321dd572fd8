// The trainer end to end on tiny phantoms: learning, bit-identical resume,
// the NaN guard, and refusal of a foreign checkpoint.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "contract/run_directory.hpp"
#include "support/temp_dir.hpp"
#include "train/event_log.hpp"
#include "state/tensor_file.hpp"
#include "train/tiny_job.hpp"
#include "train/trainer_runs.hpp"
#include "train/trainer.hpp"
#include "train/autoencoder_task.hpp"
#include "state/training_state.hpp"
#include "data/volume_dataset.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

using test::expect_same_model;
using test::options_for;

TEST(Trainer, ShortRunLowersTheLossAndWritesTheRunDirectory) {
  test::TempDir dir("trainer");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 30;
  job.training.val_every_steps = 15;
  auto options = options_for(job);
  TrainResult r = run_training(job, options);
  EXPECT_EQ(r.steps, 30);
  auto events = test::read_events(options.run.events_file());
  auto loss = test::metric_series(events, "train/loss");
  ASSERT_GE(loss.size(), 10u);
  double first = (loss[0].second + loss[1].second + loss[2].second) / 3;
  double last = (loss[loss.size() - 1].second + loss[loss.size() - 2].second + loss[loss.size() - 3].second) / 3;
  EXPECT_LT(last, 0.7 * first) << "loss did not drop: " << first << " -> " << last;
  EXPECT_EQ(test::metric_series(events, "val/psnr").size(), 2u);
  EXPECT_TRUE(fs::exists(options.run.checkpoints_dir() + "/last.safetensors"));
  EXPECT_FALSE(r.best_checkpoint.empty());
  EXPECT_TRUE(fs::exists(r.best_checkpoint));
  EXPECT_EQ(events.front()["type"], "run_started");
  EXPECT_EQ(events.back()["type"], "run_finished");
  bool artifact = false;
  for (const auto& e : events)
    if (e["type"] == "artifact") artifact = fs::exists(e["path"].get<std::string>());
  EXPECT_TRUE(artifact);
  EXPECT_FALSE(fs::is_empty(options.run.tensorboard_dir()));
}

TEST(Trainer, WeightAverageIsWhatValidationAndCheckpointsUse) {
  test::TempDir dir("ema");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 6;
  job.training.val_every_steps = 6;
  job.training.ema_decay = 0.5;
  // The re-validation below runs on the CPU; so must the training's (on a GPU
  // node `auto` trained on cuda:0, whose cuDNN convolutions (TF32 allowed by
  // default) moved val/psnr by 0.015 dB).
  job.training.device = "cpu";
  auto options = options_for(job);
  TrainResult r = run_training(job, options);
  TensorFile last = read_tensor_file(r.last_checkpoint);
  int averaged = 0, differing = 0;
  for (const auto& [name, t] : last.tensors) {
    if (name.rfind("ema.", 0) != 0) continue;
    ++averaged;
    const auto& live = last.tensors.at("model." + name.substr(4));
    if (!at::equal(t, live)) ++differing;
  }
  EXPECT_GT(averaged, 10);
  EXPECT_GT(differing, averaged / 2) << "the average should lag the live weights";
  // The reported metric is the averaged model's: eval with the averages reproduces it.
  JobSpec copy = job;
  AutoencoderTask task(copy);
  restore_weights(task.modules(), last, r.last_checkpoint, /*prefer_ema=*/true);
  VolumeDataset val(job.data, "val", job.training.base_seed);
  auto metrics = task.validate(val, validation_items(val.size(), 0), 0).metrics;
  // (1e-5 dB: training may run channels-last-3d, this task contiguous, which
  // only reorders float sums; the live weights differ by far more.)
  EXPECT_NEAR(metrics.at("val/psnr"), r.final_metrics.at("val/psnr"), 1e-5);
  AutoencoderTask live_task(copy);
  restore_weights(live_task.modules(), last, r.last_checkpoint, /*prefer_ema=*/false);
  const double live_psnr = live_task.validate(val, validation_items(val.size(), 0), 0).metrics.at("val/psnr");
  EXPECT_GT(std::abs(live_psnr - r.final_metrics.at("val/psnr")), 1e-3) << "the live weights should score differently";
}

TEST(Trainer, ResumedRunContinuesBitIdentically) {
  test::TempDir dir("resume");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.gradient_accumulation_steps = 2;  // resume must land between accumulation windows too
  job.training.ema_decay = 0.9;                  // and the weight average must be restored too
  job.data.num_train = 8;

  const auto [straight, second] = test::train_straight_and_resumed(job, 3);
  expect_same_model(straight.run.checkpoints_dir() + "/last.safetensors", second.run.checkpoints_dir() + "/last.safetensors");
  test::expect_same_losses(straight, second);
}

TEST(Trainer, NanGuardSkipsStepsThenRollsBackWithALowerLearningRate) {
  test::TempDir dir("nan");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 10;
  job.training.nan_max_bad_steps = 3;
  auto options = options_for(job);
  options.test_hooks.inject_nan_at_steps = {2, 6, 7};  // one isolated, then... (6 and 7 are consecutive attempts at the same step)
  TrainResult r = run_training(job, options);
  EXPECT_EQ(r.steps, 10);
  EXPECT_GE(r.skipped_steps, 2);
  EXPECT_EQ(r.rollbacks, 0);
  for (const auto& [name, value] : r.final_metrics) EXPECT_TRUE(std::isfinite(value)) << name;

  auto rolled = options_for(job);
  // The step counter does not advance on a skipped step, so one injected
  // step number is hit once; three different steps in a row need a counter:
  rolled.test_hooks.inject_nan_at_steps = {5};
  job.training.nan_max_bad_steps = 1;  // a single bad step already rolls back
  TrainResult r2 = run_training(job, rolled);
  EXPECT_EQ(r2.rollbacks, 1);
  EXPECT_EQ(r2.steps, 10);
  auto events = test::read_events(rolled.run.events_file());
  bool rollback_event = false;
  for (const auto& e : events)
    if (e["type"] == "checkpoint" && e["kind"] == "rollback") rollback_event = true;
  EXPECT_TRUE(rollback_event);
  auto lr = test::metric_series(events, "lr");
  ASSERT_FALSE(lr.empty());
  // After the rollback every learning rate is halved relative to the schedule of the first run.
  auto lr_plain = test::metric_series(test::read_events(options.run.events_file()), "lr");
  EXPECT_NEAR(lr.back().second, 0.5 * lr_plain.back().second, 1e-12);
}

TEST(Trainer, RefusesACheckpointOfAnotherModel) {
  test::TempDir dir("foreign");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 2;
  auto options = options_for(job);
  run_training(job, options);
  JobSpec other = job;
  other.model.autoencoder.latent_channels = 8;
  auto o2 = options_for(other);
  o2.resume_from = options.run.checkpoints_dir() + "/last.safetensors";
  try {
    run_training(other, o2);
    FAIL() << "expected a refusal";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("another model"), std::string::npos) << e.what();
  }
  auto o3 = options_for(job);
  o3.resume_from = dir.path().string() + "/missing.safetensors";
  EXPECT_THROW(run_training(job, o3), DataError);
}

// Issue 19.8: copy_ converted a bf16 tensor silently on resume, and optimizer
// moments of another shape were handed to AdamW as they were.
TEST(Trainer, RefusesACheckpointWithAnotherDtypeOrOptimizerShapesAtResume) {
  test::TempDir dir("foreign_dtype");
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.training.max_steps = 2;
  auto options = options_for(job);
  run_training(job, options);
  const TensorFile good = read_tensor_file(options.run.checkpoints_dir() + "/last.safetensors");
  auto resume_from = [&](const TensorFile& edited, const std::string& name) {
    const std::string path = dir.path().string() + "/" + name;
    write_tensor_file(path, edited);
    auto o = options_for(job);
    o.resume_from = path;
    try {
      run_training(job, o);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string weight, moment;
  for (const auto& [name, t] : good.tensors) {
    if (weight.empty() && name.rfind("model.", 0) == 0 && name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0) weight = name;
    if (moment.empty() && name.rfind("optim.", 0) == 0 && name.find(".exp_avg_sq") != std::string::npos && t.dim() > 1) moment = name;
  }
  ASSERT_FALSE(weight.empty());
  ASSERT_FALSE(moment.empty());

  TensorFile bf16 = good;
  bf16.tensors[weight] = good.tensors.at(weight).to(at::kBFloat16);
  const std::string dtype_error = resume_from(bf16, "bf16.safetensors");
  EXPECT_NE(dtype_error.find("bf16.safetensors: tensor " + weight.substr(6) + " is BFloat16, the model's is Float"), std::string::npos)
      << dtype_error;

  TensorFile flat = good;
  flat.tensors[moment] = good.tensors.at(moment).flatten();
  const std::string shape_error = resume_from(flat, "flat.safetensors");
  EXPECT_NE(shape_error.find("flat.safetensors: optimizer state " + moment + " is Float"), std::string::npos) << shape_error;
  EXPECT_NE(shape_error.find("its parameter is Float"), std::string::npos) << shape_error;
}
