// The latent diffusion pipeline through the real medsynth-engine binary.
//  - LdmTiny (label slow): the "must show": resources/jobs/ldm-tiny.yaml
//    through `launch --nproc-per-node 2` ends with image_seed42_rank0 and
//    image_seed43_rank1, different from each other, reproduced by `generate`,
//    with the requested spacing/orientation and phantom-like intensities.
//  - A minute-sized pipeline (label unit): stages are skipped when complete,
//    a missing image is regenerated identically, artifact/stage events.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

std::string job_file() { return std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/ldm-tiny.yaml"; }

fs::path only_run(const fs::path& runs) {
  fs::path run;
  for (const auto& entry : fs::directory_iterator(runs)) run = entry.path();
  return run;
}

std::vector<nlohmann::json> events_of(const fs::path& run) {
  std::vector<nlohmann::json> out;
  std::istringstream in(test::read_bytes(run / "events.jsonl"));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

double max_abs_difference(const Volume& a, const Volume& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.voxels.size(); ++i) m = std::max(m, std::abs(double(a.voxels[i]) - b.voxels[i]));
  return m;
}

double fraction(const Volume& v, float lo, float hi) {
  std::size_t n = 0;
  for (float x : v.voxels) n += (x >= lo && x < hi) ? 1 : 0;
  return static_cast<double>(n) / static_cast<double>(v.voxels.size());
}

// A generated CT phantom: HU inside the window, air around the body, soft tissue inside.
void expect_phantom_like(const Volume& v, const std::string& what) {
  float lo = 1e9f, hi = -1e9f;
  for (float x : v.voxels) lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_GE(lo, -1000.5f) << what;
  EXPECT_LE(hi, 1000.5f) << what;
  EXPECT_GT(fraction(v, -1001.f, -900.f), 0.1) << what << ": no air";
  EXPECT_LT(fraction(v, -1001.f, -900.f), 0.9) << what << ": all air";
  EXPECT_GT(fraction(v, -200.f, 200.f), 0.05) << what << ": no soft tissue";
}

}  // namespace

TEST(LdmPipeline, LdmTinyOnTwoProcessesWritesOneReproducibleImagePerRank) {
  test::TempDir dir("ldm-tiny");
  auto r = test::run_process({test::engine_binary(), "launch", "--nproc-per-node", "2", "train", job_file(),
                              test::k_on_cpu, "--runs-dir", (dir / "runs").string(), "--no-progress"},
                             dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path run = only_run(dir / "runs");
  const fs::path a = run / "output" / "image_seed42_rank0.nii.gz", b = run / "output" / "image_seed43_rank1.nii.gz";
  ASSERT_TRUE(fs::exists(a)) << r.err;
  ASSERT_TRUE(fs::exists(b)) << r.err;
  const Volume va = read_volume(a.string()), vb = read_volume(b.string());
  EXPECT_EQ(va.size, (std::array<std::size_t, 3>{32, 32, 32}));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(va.spacing[i], 10.0, 1e-6);
  EXPECT_NEAR(va.direction[0], -1.0, 1e-6);  // RAS written as LPS directions (-1, -1, +1)
  EXPECT_NEAR(va.direction[4], -1.0, 1e-6);
  EXPECT_NEAR(va.direction[8], 1.0, 1e-6);
  EXPECT_GT(max_abs_difference(va, vb), 100.0) << "two seeds gave the same volume";
  expect_phantom_like(va, "seed 42");
  expect_phantom_like(vb, "seed 43");

  int artifacts = 0;
  std::string status;
  for (const auto& e : events_of(run)) {
    if (e["type"] == "artifact" && e["kind"] == "volume") ++artifacts;
    if (e["type"] == "run_started") EXPECT_EQ(e["world_size"], 2);
    if (e["type"] == "run_finished") status = e["status"];
  }
  EXPECT_EQ(artifacts, 2);
  EXPECT_EQ(status, "completed");

  // The same seeds again: bit for bit when generated twice the same way, and
  // within float rounding of what the two ranks (one thread each) wrote.
  for (const char* out : {"again1", "again2"}) {
    auto g = test::run_process({test::engine_binary(), "generate", run.string(), "--output-dir", (dir / out).string()}, dir.path().string());
    ASSERT_EQ(g.exit_code, 0) << g.err;
  }
  const Volume g1 = read_volume((dir / "again1" / "image_seed42_rank0.nii.gz").string());
  const Volume g2 = read_volume((dir / "again2" / "image_seed42_rank0.nii.gz").string());
  EXPECT_EQ(g1.voxels, g2.voxels);
  EXPECT_LT(max_abs_difference(g1, va), 0.5) << "HU";
}
