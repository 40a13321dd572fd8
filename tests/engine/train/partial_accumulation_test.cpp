// Issue 54 item 4: an epoch whose batches do not fill the last optimizer step.
// With the template's gradient_accumulation_steps 4, a folder giving 2-3
// batches per epoch was refused ("cannot fill one optimizer step"), and a
// remainder was dropped silently. Lightning, the Fast-DDPM seed's framework,
// steps on the partial accumulation at the end of the epoch; here each of its
// losses is divided by the micro-batches it had, so its gradient is their
// mean, as a full step's is.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/temp_dir.hpp"
#include "train/tiny_job.hpp"
#include "train/trainer.hpp"
#include "train/trainer_runs.hpp"

using namespace medsynth;
using test::options_for;

namespace {

// 6 phantoms in batches of 2: 3 micro-batches per epoch.
JobSpec three_batch_job(const test::TempDir& dir, int accumulation) {
  JobSpec job = test::tiny_autoencoder_job(dir.path().string());
  job.data.num_train = 6;
  job.training.gradient_accumulation_steps = accumulation;
  job.training.max_steps = 0;
  job.training.epochs = 2;
  job.training.val_every_steps = 0;
  job.output.save_reconstructions = 0;
  job.output.tensorboard = false;
  return job;
}

}  // namespace

TEST(PartialAccumulation, TheEpochsLastStepTakesTheBatchesLeft) {
  test::TempDir dir("partial-steps");
  // 3 batches, 2 per step: a full step and a step of 1 in each epoch (before: 1 step, a batch dropped).
  JobSpec two = three_batch_job(dir, 2);
  auto options = options_for(two);
  EXPECT_EQ(run_training(two, options).steps, 4);
  // 3 batches, 4 per step: one partial step per epoch (before: refused, exit 2).
  JobSpec four = three_batch_job(dir, 4);
  four.name = "tiny-four";
  auto four_options = options_for(four);
  EXPECT_EQ(run_training(four, four_options).steps, 2);
}

TEST(PartialAccumulation, APartialStepsGradientIsTheMeanOverItsMicroBatches) {
  test::TempDir dir("partial-mean");
  // One step over the epoch's 3 micro-batches: accumulating 4 (a partial
  // step of 3) and accumulating 3 (a full one) make the same update, bit for
  // bit; a loss divided by 4 would not (Adam's epsilon sees the gradient's
  // scale; clipping, which would normalise it, is off).
  JobSpec partial = three_batch_job(dir, 4);
  partial.training.epochs = 1;
  partial.training.grad_clip_norm = 0;
  JobSpec full = partial;
  full.name = "tiny-full";
  full.training.gradient_accumulation_steps = 3;
  auto a = options_for(partial), b = options_for(full);
  EXPECT_EQ(run_training(partial, a).steps, 1);
  EXPECT_EQ(run_training(full, b).steps, 1);
  test::expect_same_model(a.run.checkpoints_dir() + "/last.safetensors", b.run.checkpoints_dir() + "/last.safetensors");
}

TEST(PartialAccumulation, AResumeAfterAPartialStepContinuesBitIdentically) {
  test::TempDir dir("partial-resume");
  JobSpec job = three_batch_job(dir, 2);
  job.training.epochs = 3;
  // Stopped after step 2, the first epoch's partial step: the next epoch starts from its first batch.
  const auto [straight, resumed] = test::train_straight_and_resumed(job, 2);
  test::expect_same_model(straight.run.checkpoints_dir() + "/last.safetensors",
                          resumed.run.checkpoints_dir() + "/last.safetensors");
  test::expect_same_losses(straight, resumed);
}
