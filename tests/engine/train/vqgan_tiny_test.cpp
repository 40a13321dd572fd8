// The patch-based VQ-GAN through the real medsynth-engine binary, 2 processes
// on Gloo (the "must show"): resources/jobs/vqgan-tiny.yaml through
// `launch --nproc-per-node 2` ends with `last` plus the top-3 checkpoints named
// like the seed's vqgan-patches-epochXX-psnrYY.YY, whose PSNRs are the three
// best val/psnr events, and ranks that trained on different volumes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/child_process.hpp"
#include "support/png_reader.hpp"
#include "support/temp_dir.hpp"
#include "train/validation_images.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

std::vector<nlohmann::json> events_of(const fs::path& run) {
  std::vector<nlohmann::json> out;
  std::istringstream in(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace

TEST(VqganTiny, TwoProcessesEndWithTopThreeCheckpointsNamedByPsnr) {
  test::TempDir dir("vqgan-tiny");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/vqgan-tiny.yaml";
  auto r = test::run_process({test::engine_binary(), "launch", "--nproc-per-node", "2", "train", job, test::k_on_cpu,
                              "--runs-dir", (dir / "runs").string(), "--no-progress"},
                             dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  const auto events = events_of(run);

  std::vector<double> psnrs;
  int world = 0;
  bool completed = false, perplexity = false;
  for (const auto& e : events) {
    const std::string type = e.value("type", "");
    if (type == "run_started") world = e.value("world_size", 0);
    if (type == "run_finished") completed = e.value("status", "") == "completed";
    if (type == "metric" && e.value("name", "") == "val/psnr") psnrs.push_back(e.value("value", 0.0));
    if (type == "metric" && e.value("name", "") == "val/perplexity") perplexity = e.value("value", 0.0) > 1.0;
  }
  EXPECT_EQ(world, 2);
  EXPECT_TRUE(completed);
  EXPECT_TRUE(perplexity) << "no val/perplexity above 1: the codebook collapsed to one code";
  ASSERT_GE(psnrs.size(), 4u) << "expected a validation every 150 of 900 steps";
  EXPECT_GT(*std::max_element(psnrs.begin(), psnrs.end()), 24.0) << "the stitched reconstructions are no better than noise";

  // checkpoints/: last + exactly the 3 best, named with epoch and PSNR, no '/'.
  const std::regex name("vqgan-tiny-epoch([0-9]{2})-psnr([0-9]+\\.[0-9]{2})\\.safetensors");
  std::vector<double> named;
  bool last = false;
  for (const auto& entry : fs::directory_iterator(run / "checkpoints")) {
    const std::string file = entry.path().filename().string();
    std::smatch m;
    if (file == "last.safetensors") last = true;
    else if (std::regex_match(file, m, name)) named.push_back(std::stod(m[2]));
    else ADD_FAILURE() << "unexpected checkpoint file " << file;
  }
  EXPECT_TRUE(last);
  ASSERT_EQ(named.size(), 3u);
  std::sort(named.rbegin(), named.rend());
  std::sort(psnrs.rbegin(), psnrs.rend());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(named[static_cast<std::size_t>(i)], psnrs[static_cast<std::size_t>(i)], 0.006) << "checkpoint " << i;

  // A stitched whole-volume reconstruction was written (save_reconstructions: 1).
  bool reconstruction = false;
  for (const auto& entry : fs::directory_iterator(run / "output")) {
    if (entry.path().filename().string().rfind("reconstruction-", 0) != 0) continue;
    reconstruction = true;
    // In HU (issue 38: they were written in the model's [0, 1]): within the
    // job's window, and the phantom's air near -1000.
    std::vector<float> v = read_volume(entry.path().string()).voxels;
    std::sort(v.begin(), v.end());
    EXPECT_GE(v.front(), -1000.0f);
    EXPECT_LE(v.back(), 1000.0f);
    EXPECT_LT(v[v.size() / 20], -800.0f) << "the 5th percentile (air) is not near -1000 HU";
  }
  EXPECT_TRUE(reconstruction);
  // Issue 36.3: the stitched volume's middle slices beside the held-out
  // input's at every validation (48^3 phantoms), for the console and TensorBoard.
  for (const char* plane : {"axial", "coronal", "sagittal"}) {
    const fs::path png = run / "output" / "val-images" / ("step000900-" + std::string(plane) + ".png");
    ASSERT_TRUE(fs::exists(png)) << png;
    const GrayImage image = test::decode_gray_png(test::read_bytes(png));
    EXPECT_EQ(image.width, 2 * 48 + k_side_by_side_gap);
    EXPECT_EQ(image.height, 48);
  }
}

// Inference on whole volumes: `eval` of a VQ-GAN checkpoint stitches every
// held-out volume back from its grid patches and reproduces the run's own
// final validation.
TEST(VqganEval, EvalOfTheLastCheckpointReproducesTheRunsValidation) {
  test::TempDir dir("vqgan-eval");
  const std::string job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/vqgan-tiny.yaml";
  auto r = test::run_process({test::engine_binary(), "train", job, "training.max_steps=40", "training.val_every_steps=40", "--runs-dir",
                              (dir / "runs").string(), "--no-progress", "--quiet"},
                             dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path run;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) run = entry.path();
  double logged = -1;
  int val_volumes = -1;
  for (const auto& e : events_of(run)) {
    if (e.value("type", "") == "metric" && e.value("name", "") == "val/psnr") logged = e.value("value", 0.0);
    if (e.value("type", "") == "run_started") val_volumes = e["extra"].value("val_volumes", -1);
  }
  ASSERT_GT(logged, 0);
  EXPECT_EQ(val_volumes, 2) << "run_started names the job's validation volumes (data.num_val)";
  auto eval = test::run_process({test::engine_binary(), "eval", (run / "checkpoints" / "last.safetensors").string(), "--json"}, dir.path().string());
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const auto out = nlohmann::json::parse(eval.out);
  EXPECT_EQ(out["volumes"].get<int>(), 2);
  EXPECT_NEAR(out["metrics"]["val/psnr"].get<double>(), logged, 0.05);
  EXPECT_GT(out["metrics"]["val/perplexity"].get<double>(), 1.0);
}
