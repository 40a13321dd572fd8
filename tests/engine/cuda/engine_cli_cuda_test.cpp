// medsynth-engine as a GPU user runs it: `launch --nproc-per-node 1` trains a
// shortened quick start on cuda:0 to completion, and `info --json` names the
// GPU, its memory and the CUDA, cuDNN and NCCL versions. Real processes (the
// binary of this build). Skipped, with the reason printed, without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "engine/cuda/cuda_device.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

bool is_version(const nlohmann::json& v) {
  return v.is_string() && std::regex_match(v.get<std::string>(), std::regex(R"(\d+\.\d+(\.\d+)?)"));
}

}  // namespace

// The README's quick start through our torchrun with one worker on cuda:0,
// shortened to 200 steps (from 1500) with validation at 100 and 200: exit 0,
// the worker trained on cuda:0 with fp16 AMP, the loss fell, val/psnr is
// finite, and the checkpoints were written.
TEST(CudaCli, LaunchOneWorkerRunsTheQuickStartOnCuda0ToCompletion) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-quickstart");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/quickstart.yaml";
  const auto r = test::run_process({test::engine_binary(), "launch", "--nproc-per-node", "1", "train", job, "training.device=cuda",
                                    "training.max_steps=200", "training.val_every_steps=100", "training.warmup_steps=20", "--runs-dir",
                                    (dir / "runs").string(), "--no-progress"},
                                   dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  ASSERT_FALSE(run.empty());
  std::istringstream events(test::read_bytes(run / "events.jsonl"));
  std::vector<double> losses;
  double psnr = NAN;
  bool started_on_cuda = false, finished = false;
  for (std::string line; std::getline(events, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e["type"] == "run_started") started_on_cuda = e["device"] == "cuda:0" && e["extra"]["amp"] == true;
    if (e["type"] == "metric" && e["name"] == "train/loss") losses.push_back(e["value"]);
    if (e["type"] == "metric" && e["name"] == "val/psnr") psnr = e["value"];
    if (e["type"] == "run_finished") finished = e["status"] == "completed";
  }
  EXPECT_TRUE(started_on_cuda) << "run_started should name cuda:0 with amp";
  EXPECT_TRUE(finished);
  ASSERT_GE(losses.size(), 4u);
  EXPECT_LT(losses.back(), losses.front()) << "the loss should fall over 200 steps";
  EXPECT_TRUE(std::isfinite(psnr));
  EXPECT_GT(psnr, 15.0) << "200 steps reach well past an untrained autoencoder";
  EXPECT_TRUE(fs::exists(run / "checkpoints" / "last.safetensors"));
}

// info --json on a GPU: every GPU by name with its memory, LibTorch's CUDA,
// the driver's CUDA, cuDNN and NCCL as versions (the CPU side of this is
// EngineCli.InfoJsonHasTheGpuFieldsEmptyWhereThereIsNoGpu).
TEST(CudaCli, InfoJsonNamesTheGpuItsMemoryAndTheCudaCudnnAndNcclVersions) {
  MEDSYNTH_REQUIRE_CUDA();
  test::TempDir dir("cuda-info");
  const auto r = test::run_process({test::engine_binary(), "info", "--json"}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info.at("cuda_available"), true);
  EXPECT_EQ(info.at("cudnn_available"), true);
  EXPECT_TRUE(is_version(info.at("cuda_version"))) << info.at("cuda_version");
  EXPECT_TRUE(is_version(info.at("cuda_driver_version"))) << info.at("cuda_driver_version");
  EXPECT_TRUE(is_version(info.at("cudnn_version"))) << info.at("cudnn_version");
  EXPECT_TRUE(is_version(info.at("nccl"))) << info.at("nccl");
  const auto& gpus = info.at("gpus");
  ASSERT_EQ(gpus.size(), static_cast<std::size_t>(torch::cuda::device_count()));
  for (const auto& gpu : gpus) {
    EXPECT_FALSE(gpu.at("name").get<std::string>().empty());
    EXPECT_GT(gpu.at("memory_bytes").get<std::int64_t>(), std::int64_t{1} << 30) << "a GPU with more than 1 GiB";
    EXPECT_NEAR(gpu.at("memory_gib").get<double>(), gpu.at("memory_bytes").get<double>() / (1 << 30), 1e-6);
    EXPECT_TRUE(is_version(gpu.at("compute_capability"))) << gpu;
    EXPECT_GT(gpu.at("multiprocessors").get<int>(), 0);
  }
  int cuda_devices = 0;
  for (const auto& device : info.at("devices"))
    if (device.at("type") == "cuda") {
      ++cuda_devices;
      EXPECT_FALSE(device.value("name", "").empty()) << "the console shows this name: " << device;
    }
  EXPECT_EQ(cuda_devices, static_cast<int>(gpus.size()));
  const auto text = test::run_process({test::engine_binary(), "info"}, dir.path().string());
  EXPECT_NE(text.out.find("GPU 0: " + gpus[0].at("name").get<std::string>()), std::string::npos) << text.out;
}
