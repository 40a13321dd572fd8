// The planner (issue 38): its estimate follows the options the way a step's
// memory and work do (the batch and the patch scale the activations, AMP
// shrinks them, accumulation multiplies the work but not the memory, a
// pipeline is planned at its largest stage), and its activation model
// matches what a real training step measures: the quick start's peak grows
// with its patch as the estimate says (real runs of medsynth-engine, peak RSS
// from run_finished), in float32 so that every CPU runs the same precision.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/job_loader.hpp"
#include "config/job_plan.hpp"
#include "config/task_catalog.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

const std::string k_quickstart = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/quickstart.yaml";

JobSpec quickstart(std::vector<std::string> overrides) {
  overrides.push_back("data.phantom_size=[64,64,64]");
  return load_job_file_with_overrides(k_quickstart, overrides);
}

TEST(JobPlan, TheEstimateFollowsTheBatchThePatchThePrecisionAndTheAccumulation) {
  const JobPlan base = plan_job(quickstart({"data.patch_size=[32,32,32]", "training.amp=false"}));
  const JobPlan batch2 =
      plan_job(quickstart({"data.patch_size=[32,32,32]", "training.amp=false", "training.batch_size=2"}));
  const JobPlan patch64 = plan_job(quickstart({"data.patch_size=[64,64,64]", "training.amp=false"}));
  const JobPlan amp = plan_job(quickstart({"data.patch_size=[32,32,32]", "training.amp=true"}));
  const JobPlan accumulate = plan_job(
      quickstart({"data.patch_size=[32,32,32]", "training.amp=false", "training.gradient_accumulation_steps=4"}));
  EXPECT_NEAR(batch2.activation_bytes / base.activation_bytes, 2.0, 1e-9);
  EXPECT_NEAR(patch64.activation_bytes / base.activation_bytes, 8.0, 1e-9);
  EXPECT_NEAR(amp.activation_bytes / base.activation_bytes, 2.5 / 4.0, 1e-9);
  EXPECT_DOUBLE_EQ(accumulate.activation_bytes, base.activation_bytes);
  EXPECT_NEAR(accumulate.step_macs / base.step_macs, 4.0, 1e-9);
  EXPECT_DOUBLE_EQ(base.state_bytes, 16.0 * base.networks.front().parameters);
  EXPECT_GT(cpu_seconds(base.step_macs, 1, false), cpu_seconds(base.step_macs, 2, false));
  EXPECT_GT(cpu_seconds(base.step_macs, 2, false), cpu_seconds(base.step_macs, 2, true));
  // The whole run: its steps' work (the quick start: 700 steps).
  EXPECT_NEAR(base.run_macs / base.step_macs, 700.0, 1e-9);
}

TEST(JobPlan, APipelineIsPlannedAtTheStageThatNeedsTheMost) {
  const std::string ldm = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml";
  // Small phantoms: the autoencoder stage's full-resolution patches need the most.
  EXPECT_EQ(plan_job(load_job_file_with_overrides(ldm, {})).stage, "autoencoder stage");
  // Large phantoms: the diffusion UNet on their whole latents does.
  const JobPlan big = plan_job(load_job_file_with_overrides(ldm, {"data.phantom_size=[256,256,256]"}));
  EXPECT_EQ(big.stage, "diffusion stage");
  EXPECT_EQ(big.networks.front().name, "model.diffusion_unet");
  // A given autoencoder: only the diffusion stage trains.
  EXPECT_EQ(plan_job(load_job_file_with_overrides(ldm, {"ldm.autoencoder_checkpoint=/x.safetensors"})).stage,
            "diffusion stage");
}

// The planner asks the catalog what a task builds (issue 52): every task is
// planned, with the networks its entry names; a new task whose entry says it
// builds nothing fails here instead of going unplanned and unrefused.
TEST(JobPlan, EveryTaskOfTheCatalogIsPlannedFromWhatItSaysItBuilds) {
  // The first network of each task's plan (for ldm: its larger stage, here
  // the diffusion UNet on whole 64^3 phantoms' latents).
  const std::map<std::string, std::string> first_network{
      {"autoencoder", "model.autoencoder"}, {"vqgan", "model.vqgan (model.autoencoder's encoder and decoder)"},
      {"ldm", "model.diffusion_unet"},      {"controlnet", "model.diffusion_unet (frozen)"},
      {"survival", "model.resnet"},         {"translation", "model.diffusion_unet"}};
  for (const TaskTraits& traits : task_catalog()) {
    const std::string name(traits.name);
    EXPECT_TRUE(traits.first_stage != FirstStageRole::none || traits.diffusion != DiffusionRole::none ||
                traits.builds_resnet)
        << name << ": its catalog entry says it builds no network";
    JobSpec job = quickstart({});
    job.task = name;
    const JobPlan plan = plan_job(job);
    ASSERT_FALSE(plan.networks.empty()) << name;
    EXPECT_GT(plan.step_macs, 0.0) << name;
    ASSERT_TRUE(first_network.count(name)) << name << ": a task this test does not know yet";
    EXPECT_EQ(plan.networks.front().name, first_network.at(name)) << name;
  }
  JobSpec unknown = quickstart({});
  unknown.task = "segmentation";
  EXPECT_TRUE(plan_job(unknown).networks.empty());
}

double peak_gib(const test::ProcessResult& r) {
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_discarded() && e.value("type", "") == "run_finished") return e.at("extra").at("peak_resident_gib");
  }
  ADD_FAILURE() << "no run_finished: " << r.err;
  return 0;
}

TEST(JobPlan, TheActivationModelMatchesTheMeasuredGrowthOfARealStep) {
  test::TempDir dir("job-plan-measured");
  const auto run = [&](int patch) {
    const std::string p = "[" + std::to_string(patch) + "," + std::to_string(patch) + "," + std::to_string(patch) + "]";
    return test::run_process(
        {test::engine_binary(), "train", k_quickstart, test::k_on_cpu, "training.amp=false", "training.max_steps=2",
         "training.val_every_steps=2", "training.num_threads=1", "data.num_train=2", "data.num_val=1",
         "data.phantom_size=[64,64,64]", "data.patch_size=" + p, "--runs-dir",
         (dir / ("runs" + std::to_string(patch))).string(), "--json", "--no-progress"},
        dir.path().string());
  };
  const double measured = (peak_gib(run(64)) - peak_gib(run(32))) * 1024.0 * 1024.0 * 1024.0;
  const double estimated = plan_job(quickstart({"data.patch_size=[64,64,64]", "training.amp=false"})).activation_bytes -
                           plan_job(quickstart({"data.patch_size=[32,32,32]", "training.amp=false"})).activation_bytes;
  ASSERT_GT(measured, 0.0);
  // Estimated 320 MiB. Measured on a Zen 5 (AVX-512) at 1 and 2 threads and
  // seeds 42, 1 and 7, and with the kernels capped at AVX2: 291-428 MiB, the
  // ratio 0.75-1.10 (the allocator's timing, not the arithmetic). The band
  // leaves a CPU kind not measured here (a Xeon with AMX) a margin beyond that.
  EXPECT_NEAR(estimated / measured, 1.0, 0.45)
      << "estimated " << estimated / 1048576 << " MiB, measured " << measured / 1048576 << " MiB";
}

TEST(JobPlan, ValidateShowsThePlanAndSaysWhenAJobCannotFit) {
  test::TempDir dir("job-plan-cli");
  auto r = test::run_process({test::engine_binary(), "validate", k_quickstart, "--plan"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("peak per process: about"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": fits"), std::string::npos) << r.out;
  r = test::run_process({test::engine_binary(), "validate", k_quickstart, "data.phantom_size=[512,512,512]",
                         "data.patch_size=[512,512,512]", "training.batch_size=16", "--plan"},
                        dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("does NOT fit"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace medsynth

namespace medsynth {
namespace {

// Issue 54 item 5: `validate RUN --plan` failed ("is a directory"). A run
// directory is the job `train RUN` trains: its job.yaml starting from its
// networks, so an ldm run with a trained autoencoder plans its diffusion
// stage, not the autoencoder stage its job.yaml alone would train.
TEST(JobPlan, ValidatePlansARunDirectoryAsTrainRunTrainsIt) {
  test::TempDir dir("job-plan-run");
  const auto run = dir / "ldm-run";
  std::filesystem::create_directories(run / "autoencoder" / "checkpoints");
  test::write_bytes((run / "autoencoder" / "checkpoints" / "last.safetensors").string(), "");
  std::filesystem::copy_file(std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml", run / "job.yaml");
  const auto alone = test::run_process({test::engine_binary(), "validate", (run / "job.yaml").string(), "--plan"},
                                       dir.path().string());
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.out.find("plan (an estimate; docs/performance.md, \"The planner\"): autoencoder stage"),
            std::string::npos)
      << alone.out;
  const auto r = test::run_process({test::engine_binary(), "validate", run.string(), "--plan"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(run.string() + ": valid"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\"The planner\"): diffusion stage"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("autoencoder stage"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace medsynth
