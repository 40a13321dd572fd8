// Issue 38: sweeps. `sweep JOB key=a,b ...` plans the product of the swept
// values (the last axis fastest, bracketed lists kept whole), checks every
// run's job before training any, then trains them one after the other as
// runs of their own and tabulates their final metrics, with a summary file
// beside the runs whose run directories are relative to it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

const std::string k_job = std::string(MEDSYNTH_SOURCE_DIR) + "/resources/jobs/quickstart.yaml";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Sweep, PlansTheProductLastAxisFastestAndKeepsBracketedListsWhole) {
  test::TempDir dir("sweep-plan");
  const auto r =
      test::run_process({test::engine_binary(), "sweep", k_job, "training.lr=1e-3,2e-3", "data.phantom_size=[32,32,32]",
                         "data.patch_size=[32,32,32]", "training.batch_size=1,2,4", "--dry-run"},
                        dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 6u) << r.out;
  EXPECT_EQ(out[0], "1 training.lr=1e-3 training.batch_size=1");
  EXPECT_EQ(out[1], "2 training.lr=1e-3 training.batch_size=2");
  EXPECT_EQ(out[5], "6 training.lr=2e-3 training.batch_size=4");
  EXPECT_NE(r.err.find("sweep: 6 runs of"), std::string::npos) << r.err;
  // Hydra's spelling: train -m sweeps the same way.
  const auto m = test::run_process({test::engine_binary(), "train", "-m", k_job, "training.lr=1e-3,2e-3",
                                    "data.phantom_size=[32,32,32]", "data.patch_size=[32,32,32]", "--resume", "auto"},
                                   dir.path().string());
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("-m: a sweep starts new runs"), std::string::npos) << m.err;
}

TEST(Sweep, ABadValueOrKeyIsRefusedBeforeAnyRunStarts) {
  test::TempDir dir("sweep-refused");
  auto r = test::run_process(
      {test::engine_binary(), "sweep", k_job, "training.lr=1e-3,-1", "--runs-dir", (dir / "runs").string()},
      dir.path().string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("training.lr"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "runs")) << "a run started before the sweep's jobs were checked";
  r = test::run_process({test::engine_binary(), "sweep", k_job, "training.lr=1e-3"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no override lists alternatives"), std::string::npos) << r.err;
  r = test::run_process({test::engine_binary(), "sweep", k_job, "training.lr=1e-3,,2e-3"}, dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("an empty value between commas"), std::string::npos) << r.err;
}

TEST(Sweep, TrainsEachCombinationAsARunAndTabulatesTheirMetrics) {
  test::TempDir dir("sweep-runs");
  const auto r =
      test::run_process({test::engine_binary(), "sweep", k_job, test::k_on_cpu, "training.lr=1e-3,3e-3",
                         "training.max_steps=4", "training.val_every_steps=4", "training.batch_size=1",
                         "data.num_train=2", "data.num_val=1", "data.phantom_size=[32,32,32]",
                         "data.patch_size=[32,32,32]", "training.num_threads=1", "--runs-dir", (dir / "runs").string()},
                        dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sweep: run 1/2: training.lr=1e-3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sweep: run 2/2 completed"), std::string::npos) << r.err;
  const auto table = lines(r.out);
  ASSERT_EQ(table.size(), 3u) << r.out;
  EXPECT_NE(table[0].find("training.lr"), std::string::npos);
  EXPECT_NE(table[0].find("val/psnr"), std::string::npos) << table[0];
  EXPECT_NE(table[1].find("completed"), std::string::npos);
  EXPECT_NE(table[2].find("3e-3"), std::string::npos);

  fs::path summary;
  std::size_t runs = 0;
  for (const auto& entry : fs::directory_iterator(dir / "runs")) {
    if (entry.path().filename().string().rfind("sweep-", 0) == 0) summary = entry.path();
    if (entry.is_directory()) ++runs;
  }
  EXPECT_EQ(runs, 2u);
  ASSERT_FALSE(summary.empty());
  std::ifstream in(summary);
  const auto s = nlohmann::json::parse(in);
  ASSERT_EQ(s.at("runs").size(), 2u);
  for (const auto& run : s.at("runs")) {
    EXPECT_EQ(run.at("status"), "completed");
    const std::string run_dir = run.at("run_dir");
    EXPECT_TRUE(fs::path(run_dir).is_relative()) << run_dir;
    EXPECT_TRUE(fs::exists(dir / "runs" / run_dir / "checkpoints" / "last.safetensors")) << run_dir;
    EXPECT_TRUE(run.at("metrics").contains("val/psnr"));
  }
  EXPECT_EQ(s.at("runs")[1].at("values").at("training.lr"), "3e-3");
}

}  // namespace
