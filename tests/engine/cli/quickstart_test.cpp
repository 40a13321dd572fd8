// README command (1) as its "must show" states it: the quick-start job trains
// to the quality of its recipe on held-out phantoms, keeps a best and a last
// checkpoint, and writes reconstructions that ITK opens.
// The floor is the recipe's measured minimum less a margin, not one run's
// result: tests/bench/quickstart_sweep.py runs seeds x {bf16, fp32} x {1, 2}
// threads (docs/performance.md, "The quick start"). The recipe of whole 64^3
// phantoms, 700 steps: all 25 runs of its sweep (5 seeds x {bf16, fp32} x
// {1, 2} threads, and AVX2-only fp32 at 2 threads) ended at >= 30.26 dB /
// 0.918, which clears 29.5 dB / 0.905 by 0.76 dB and 0.013 SSIM.
// Label slow: ~4.2 min with native bf16, ~7.8 min in fp32 on an AVX-512 EPYC,
// ~12.7 min on the AVX2-only path (2 threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

TEST(QuickStart, TrainsTheAutoencoderToTheAdvertisedQuality) {
  test::TempDir dir("quickstart");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/quickstart.yaml";
  // Two intra-op threads, named rather than "all cores", so the trajectory is
  // the same on a bigger machine; the sweep shows the floor at 1 and 2 threads.
  auto r = test::run_process({test::engine_binary(), "train", job, "training.num_threads=2", "--runs-dir", (dir / "runs").string(), "--no-progress"},
                             dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();

  double psnr = 0, ssim = 0;
  int best = 0, last = 0;
  std::vector<std::string> reconstructions;
  std::istringstream events(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(events, line);) {
    auto e = nlohmann::json::parse(line);
    if (e["type"] == "metric" && e["name"] == "val/psnr") psnr = e["value"];
    if (e["type"] == "metric" && e["name"] == "val/ssim") ssim = e["value"];
    if (e["type"] == "checkpoint") (e["kind"] == "best" ? best : last) += fs::exists(e["path"].get<std::string>()) ? 1 : 0;
    if (e["type"] == "artifact" && e["kind"] == "reconstruction") reconstructions.push_back(e["path"]);
  }
  constexpr double k_psnr_floor_db = 29.5;  // sweep minimum 30.26 - 0.76 dB
  constexpr double k_ssim_floor = 0.905;    // sweep minimum 0.918 - 0.013
  EXPECT_GE(psnr, k_psnr_floor_db);
  EXPECT_GE(ssim, k_ssim_floor);
  EXPECT_GE(best, 1);
  EXPECT_TRUE(fs::exists(run / "checkpoints" / "last.safetensors"));
  ASSERT_FALSE(reconstructions.empty());
  for (const auto& path : reconstructions) {
    Volume v = read_volume(path);  // through ITK, after the header guard
    EXPECT_EQ(v.size[0], 64u);
    EXPECT_DOUBLE_EQ(v.spacing[0], 5.0);
    // In HU (issue 38): within the job's window [-1000, 1000] (so within
    // CT's [-1024, 3071]), and the phantom's air reads near -1000.
    std::vector<float> sorted = v.voxels;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_GE(sorted.front(), -1000.0f) << path;
    EXPECT_LE(sorted.back(), 1000.0f) << path;
    EXPECT_LT(sorted[sorted.size() / 20], -900.0f) << path << ": the 5th percentile (air) is not near -1000 HU";
  }
}
