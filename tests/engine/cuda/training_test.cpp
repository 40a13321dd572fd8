// The trainer on a GPU, mirroring the CPU tests of tests/engine/train:
// fp16 autocast with dynamic loss scaling lowers the loss, a NaN under the
// scaler is skipped and then rolled back like on CPU, bf16 autocast trains,
// and a resumed run continues bit for bit in deterministic mode. Skipped,
// with the reason printed, where there is no GPU.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/optim/adamw.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "config/job_loader.hpp"
#include "core/error.hpp"
#include "data/batch_loader.hpp"
#include "data/volume_dataset.hpp"
#include "engine/cuda/cuda_device.hpp"
#include "engine/train/event_log.hpp"
#include "engine/train/tiny_job.hpp"
#include "engine/train/trainer_runs.hpp"
#include "contract/run_directory.hpp"
#include "support/temp_dir.hpp"
#include "train/autocast_scope.hpp"
#include "train/autoencoder_task.hpp"
#include "train/loss_scaler.hpp"
#include "state/tensor_file.hpp"
#include "train/trainer.hpp"

using namespace medsynth;
using test::options_for;

namespace {

// The tiny CPU job, on cuda:0 with AMP (fp16 autocast + the loss scaler).
JobSpec cuda_job(const std::string& runs_dir) {
  JobSpec job = test::tiny_autoencoder_job(runs_dir);
  job.training.device = "cuda";
  job.training.amp = true;
  job.training.deterministic = true;
  return job;
}

nlohmann::json progress_of(const std::string& checkpoint) {
  return nlohmann::json::parse(read_tensor_file(checkpoint).metadata.at("progress"));
}

double mean_of_first(const std::vector<std::pair<long, double>>& s, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += s[i].second;
  return sum / static_cast<double>(n);
}

double mean_of_last(const std::vector<std::pair<long, double>>& s, std::size_t n) {
  double sum = 0;
  for (std::size_t i = s.size() - n; i < s.size(); ++i) sum += s[i].second;
  return sum / static_cast<double>(n);
}

}  // namespace

// The scaler itself on CUDA gradients: unscaling divides by the scale, an Inf
// gradient is reported and halves the scale (backoff 0.5), good steps grow it.
TEST(CudaTraining, LossScalerUnscalesCudaGradientsAndBacksOffOnInf) {
  MEDSYNTH_REQUIRE_CUDA();
  LossScaler scaler(LossScalerOptions{.enabled = true, .init_scale = 1024.0, .growth_interval = 2});
  at::Tensor p = at::zeros({4}, at::TensorOptions().device(test::cuda0())).requires_grad_();
  scaler.scale_loss((p * at::arange(1, 5, p.options())).sum()).backward();
  EXPECT_DOUBLE_EQ(p.grad()[3].item<double>(), 4.0 * 1024.0);
  ASSERT_TRUE(scaler.unscale_and_check({p}));
  EXPECT_TRUE(at::equal(p.grad(), at::arange(1, 5, p.options())));
  scaler.update(true);
  scaler.update(true);
  EXPECT_DOUBLE_EQ(scaler.scale(), 2048.0);  // two good steps with growth_interval 2
  p.mutable_grad().fill_(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(scaler.unscale_and_check({p}));
  scaler.update(false);
  EXPECT_DOUBLE_EQ(scaler.scale(), 1024.0);
}

// fp16 autocast + dynamic loss scaling through the real trainer on cuda:0:
// the loss drops as on CPU (mean of the last 3 logged losses < 0.7 x the first 3),
// and the scaler was on (its scale is stored in the checkpoint, not 1).
TEST(CudaTraining, Fp16AutocastWithLossScalingLowersTheLoss) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-fp16");
  JobSpec job = cuda_job(dir.path().string());
  job.training.max_steps = 30;
  job.training.val_every_steps = 15;
  auto options = options_for(job);
  const TrainResult r = run_training(job, options);
  EXPECT_EQ(r.steps, 30);
  const auto events = test::read_events(options.run.events_file());
  ASSERT_EQ(events.front()["type"], "run_started");
  EXPECT_EQ(events.front()["device"], "cuda:0");
  EXPECT_EQ(events.front()["extra"]["amp"], true);
  const auto loss = test::metric_series(events, "train/loss");
  ASSERT_GE(loss.size(), 10u);
  const double first = mean_of_first(loss, 3), last = mean_of_last(loss, 3);
  EXPECT_LT(last, 0.7 * first) << "loss did not drop under fp16 autocast: " << first << " -> " << last;
  for (const auto& [name, value] : r.final_metrics) EXPECT_TRUE(std::isfinite(value)) << name;
  const double scale = progress_of(r.last_checkpoint).at("scaler_scale");
  EXPECT_GT(scale, 1.0) << "the loss scaler should be enabled for fp16 on CUDA";
  EXPECT_LE(scale, 65536.0);  // the initial scale; it grows only after 2000 good steps
  EXPECT_EQ(events.back()["type"], "run_finished");
}

// As Trainer.NanGuardSkipsStepsThenRollsBackWithALowerLearningRate on CPU:
// isolated NaN losses are skipped (no rollback), a NaN with
// nan_max_bad_steps 1 rolls back to the last checkpoint and halves the LR.
// Under the scaler, a skipped step also halves the loss scale.
TEST(CudaTraining, NanUnderTheLossScalerSkipsThenRollsBackLikeOnCpu) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-nan");
  JobSpec job = cuda_job(dir.path().string());
  job.training.max_steps = 10;
  job.training.nan_max_bad_steps = 3;
  auto options = options_for(job);
  options.test_hooks.inject_nan_at_steps = {2, 6, 7};
  const TrainResult r = run_training(job, options);
  EXPECT_EQ(r.steps, 10);
  EXPECT_GE(r.skipped_steps, 2);
  EXPECT_EQ(r.rollbacks, 0);
  for (const auto& [name, value] : r.final_metrics) EXPECT_TRUE(std::isfinite(value)) << name;
  const double scale = progress_of(r.last_checkpoint).at("scaler_scale");
  EXPECT_LE(scale, 65536.0 * 0.25) << "each skipped step halves the scale (two or more skipped)";
  EXPECT_GT(scale, 0.0);

  auto rolled = options_for(job);
  rolled.test_hooks.inject_nan_at_steps = {5};
  job.training.nan_max_bad_steps = 1;
  const TrainResult r2 = run_training(job, rolled);
  EXPECT_EQ(r2.rollbacks, 1);
  EXPECT_EQ(r2.steps, 10);
  const auto events = test::read_events(rolled.run.events_file());
  bool rollback_event = false;
  for (const auto& e : events)
    if (e["type"] == "checkpoint" && e["kind"] == "rollback") rollback_event = true;
  EXPECT_TRUE(rollback_event);
  const auto lr = test::metric_series(events, "lr");
  const auto lr_plain = test::metric_series(test::read_events(options.run.events_file()), "lr");
  ASSERT_FALSE(lr.empty());
  ASSERT_FALSE(lr_plain.empty());
  EXPECT_NEAR(lr.back().second, 0.5 * lr_plain.back().second, 1e-12);
}

// bf16 autocast on the GPU (no loss scaling: bf16 has fp32's range): the
// engine's task, AutocastScope and AdamW for 40 steps; convolutions run in
// bf16 and the loss drops (last 3 < 0.7 x first 3).
TEST(CudaTraining, Bf16AutocastTrainsOnCuda) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-bf16");
  JobSpec job = cuda_job(dir.path().string());
  at::manual_seed(static_cast<std::uint64_t>(job.training.base_seed));
  {
    AutocastScope scope(true, c10::DeviceType::CUDA, at::kBFloat16);
    const auto options = at::TensorOptions().device(test::cuda0());
    EXPECT_EQ(at::conv3d(at::randn({1, 2, 6, 6, 6}, options), at::randn({3, 2, 3, 3, 3}, options)).scalar_type(), at::kBFloat16);
  }
  AutoencoderTask task(job);
  task.to(test::cuda0());
  task.train_mode(true);
  auto groups = task.optimizer_groups();
  torch::optim::AdamW optimizer(groups.at(0).parameters, torch::optim::AdamWOptions(job.training.lr));
  VolumeDataset train(job.data, "train", job.training.base_seed);
  LoaderOptions lo;
  lo.batch_size = job.training.batch_size;
  lo.patch_size = job.data.patch_size;
  lo.base_seed = static_cast<std::uint64_t>(job.training.base_seed);
  lo.num_workers = 0;
  BatchLoader loader(train, lo);
  std::vector<std::pair<long, double>> losses;
  for (int epoch = 0; losses.size() < 40; ++epoch) {
    loader.start_epoch(epoch);
    while (losses.size() < 40) {
      auto batch = loader.next();
      if (!batch) break;
      std::map<std::string, double> terms;
      at::Tensor loss;
      {
        AutocastScope scope(true, c10::DeviceType::CUDA, at::kBFloat16);
        const at::Tensor images = batch->images.to(test::cuda0());
        const std::vector<std::uint64_t> no_keys;
        loss = task.compute_loss(0, StepBatch{images, no_keys, batch->labels, batch->sample_keys},
                                 static_cast<int>(losses.size()), terms);
      }
      const double value = loss.item<double>();
      ASSERT_TRUE(std::isfinite(value)) << "bf16 loss at step " << losses.size();
      loss.backward();
      optimizer.step();
      optimizer.zero_grad();
      losses.emplace_back(static_cast<long>(losses.size()), value);
    }
  }
  const double first = mean_of_first(losses, 3), last = mean_of_last(losses, 3);
  EXPECT_LT(last, 0.7 * first) << "loss did not drop under bf16 autocast: " << first << " -> " << last;
}

// As Trainer.ResumedRunContinuesBitIdentically on CPU, on cuda:0 with fp16 +
// the scaler in deterministic mode (cuDNN deterministic, no autotuner, torch's
// deterministic algorithms, a fixed cuBLAS workspace): stopping at step 3 and
// resuming gives the same weights, Adam moments and EMA as a straight run,
// bit for bit (at::equal), and the same logged losses (==).
TEST(CudaTraining, ResumedRunIsBitIdenticalInDeterministicMode) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-resume");
  JobSpec job = cuda_job(dir.path().string());
  job.training.gradient_accumulation_steps = 2;
  job.training.ema_decay = 0.9;
  job.data.num_train = 8;

  const auto [straight, second] = test::train_straight_and_resumed(job, 3);
  const std::string last_straight = straight.run.checkpoints_dir() + "/last.safetensors";
  const std::string last_resumed = second.run.checkpoints_dir() + "/last.safetensors";
  EXPECT_TRUE(read_tensor_file(last_straight).tensors.count("rng.cuda")) << "a CUDA run's checkpoint keeps the GPU generator's state";
  test::expect_same_model(last_straight, last_resumed);
  EXPECT_EQ(progress_of(last_straight).at("scaler_scale"), progress_of(last_resumed).at("scaler_scale"));
  test::expect_same_losses(straight, second);
}
