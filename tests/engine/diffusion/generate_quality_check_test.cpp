// Issue 39 item 3 through the real binary: generate --label --quality-check
// on the MAISI fixture. The organ statistics are set so that seed 7's liver
// median falls outside the accepted range and seed 8's inside: the image is
// sampled again with the next seed and passes, the stderr lines and the
// report beside it say which organ failed and what was done, the kept image
// is seed 8's bit for bit, and regenerate makes it again from its provenance.
// With every try failing the last image is kept and the report says so. The
// folder's dataset card (issue 39 item 4) gathers provenance, QA and audit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "diffusion/maisi_import.hpp"
#include "eval/organ_quality_check.hpp"
#include "state/tensor_file.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

const fs::path k_data = MEDSYNTH_DIFFUSION_TEST_DATA;

class GenerateQualityCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    MaisiImportOptions o;
    o.folder = (k_data / "maisi_folder").string();
    o.out = (dir_ / "run").string();
    import_maisi(o);
    // The fixture's label map (liver 1, spleen 3, kidney 5, stomach 12), [x, y, z].
    const auto xyz =
        read_tensor_file((k_data / "maisi_folder_expected.safetensors").string()).tensors.at("io.label_xyz");
    const auto zyx = xyz.permute({2, 1, 0}).contiguous();
    label_ = make_volume({16, 24, 32}, {1.5, 1.2, 2.0});
    std::copy(zyx.data_ptr<float>(), zyx.data_ptr<float>() + zyx.numel(), label_.voxels.begin());
    write_volume(label_, label_path());
  }

  std::string label_path() const { return (dir_ / "label.nii.gz").string(); }

  test::ProcessResult generate(std::int64_t seed, const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {
        test::engine_binary(), "generate",           (dir_ / "run").string(), test::k_on_cpu, "--label",
        label_path(),          "--base-seed",        std::to_string(seed),    "--num-images", "1",
        "--output-dir",        (dir_ / out).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return test::run_process(argv, dir_.path().string());
  }

  // The liver median of the image `generate` wrote for `seed` into `out`.
  double liver_median(const std::string& out, std::int64_t seed) {
    OrganStatistics wide;
    wide.organs["liver"] = {-1e9, 1e9};
    const Volume image =
        read_volume((dir_ / out / ("sample_seed" + std::to_string(seed) + "_rank0_image.nii.gz")).string());
    return *check_organ_intensities(image, label_, wide, label_path()).organs.at(0).median;
  }

  std::string statistics(double liver_low, double liver_high) {
    const auto organ = [](double low, double high) {
      return nlohmann::json{
          {"sigma_6_low", low}, {"sigma_6_high", high}, {"percentile_0_5", low}, {"percentile_99_5", high}};
    };
    const nlohmann::json s = {
        {"liver", organ(liver_low, liver_high)}, {"kidney", organ(-5000, 5000)}, {"lung", organ(-900, -700)}};
    const std::string path = (dir_ / "statistics.json").string();
    std::ofstream(path) << s.dump();
    return path;
  }

  test::TempDir dir_{"generate-quality-check"};
  Volume label_;
};

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST_F(GenerateQualityCheck, AnImageWhoseLiverIsOutOfRangeIsSampledAgainWithTheNextSeedAndPasses) {
  ASSERT_EQ(generate(7, "seed7").exit_code, 0);
  ASSERT_EQ(generate(8, "seed8").exit_code, 0);
  const double m7 = liver_median("seed7", 7), m8 = liver_median("seed8", 8);
  ASSERT_GT(std::abs(m7 - m8), 0.5) << "the two seeds' livers must differ for the check to tell them apart";
  // A range that holds seed 8's liver median and pushes seed 7's out.
  const double middle = (m7 + m8) / 2;
  const std::string stats = m8 > m7 ? statistics(middle, m8 + 1000) : statistics(m8 - 1000, middle);

  const auto r = generate(7, "checked", {"--quality-check", stats});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("image seed 7: quality check failed with seed 7: liver median"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sampling again with seed 8 (try 2 of 2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("image seed 7: quality check passed with seed 8 (try 2)"), std::string::npos) << r.err;

  const Volume kept = read_volume((dir_ / "checked" / "sample_seed7_rank0_image.nii.gz").string());
  const Volume seed8 = read_volume((dir_ / "seed8" / "sample_seed8_rank0_image.nii.gz").string());
  EXPECT_EQ(kept.voxels, seed8.voxels) << "the kept image is not seed 8's";

  const auto report = read_json(dir_ / "checked" / "sample_seed7_rank0_quality.json");
  EXPECT_EQ(report.at("image"), "sample_seed7_rank0_image.nii.gz");
  EXPECT_TRUE(report.at("passed").get<bool>());
  EXPECT_EQ(report.at("seed"), 8);
  ASSERT_EQ(report.at("tries").size(), 2u);
  const auto& first = report.at("tries")[0];
  EXPECT_EQ(first.at("seed"), 7);
  EXPECT_FALSE(first.at("passed").get<bool>());
  for (const auto& o : first.at("organs")) {
    const std::string name = o.at("organ");
    EXPECT_EQ(o.at("outlier").get<bool>(), name == "liver") << name;
    if (name == "lung") EXPECT_TRUE(o.at("median_hu").is_null()) << "no lung in the map: not judged";
  }
  // Sorted by name: kidney, liver, lung. The check judges the float image, as
  // NV-Generate's does before it writes; the file holds int16 (an imported
  // run's generate.label_image_int16), each voxel within 0.5 HU of it.
  EXPECT_NEAR(first.at("organs")[1].at("median_hu").get<double>(), m7, 0.5);

  // Its provenance records seed 8: regenerate makes the same image again.
  const auto again = test::run_process(
      {test::engine_binary(), "regenerate", (dir_ / "checked" / "sample_seed7_rank0_image.nii.gz").string(), "--out",
       (dir_ / "again_image.nii.gz").string()},
      dir_.path().string());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("bit for bit"), std::string::npos) << again.out;

  // Issue 39 item 4: the folder's card has the pair's provenance and QA, and
  // the memorization audit of an evaluation.json that names it. Its latent
  // ratio is null, as `evaluate` writes it without a run's autoencoder (the
  // card refused such a file: "type must be number, but is null").
  const fs::path evaluation = dir_ / "evaluation.json";
  std::ofstream(evaluation) << nlohmann::json{
      {"memorization",
       {{"cases",
         {{{"generated", (dir_ / "checked" / "sample_seed7_rank0_image.nii.gz").string()},
           {"flagged", true},
           {"ms_ssim_ratio", 0.05},
           {"latent_ratio",
            nullptr}}}}}}}.dump();
  const auto card = test::run_process(
      {test::engine_binary(), "dataset-card", (dir_ / "checked").string(), "--evaluation", evaluation.string()},
      dir_.path().string());
  ASSERT_EQ(card.exit_code, 0) << card.err;
  EXPECT_NE(card.out.find("Organ quality check: 1 of 1 passed"), std::string::npos) << card.out;
  EXPECT_NE(card.out.find("1 of 1 flagged"), std::string::npos) << card.out;
  const auto written = read_json(dir_ / "checked" / "dataset-card.json");
  ASSERT_EQ(written.at("pairs").size(), 1u);
  const auto& pair = written.at("pairs")[0];
  EXPECT_EQ(pair.at("seed"), 8);
  EXPECT_EQ(pair.at("label"), "sample_seed7_rank0_label.nii.gz");
  EXPECT_EQ(pair.at("quality").at("tries"), 2);
  EXPECT_TRUE(pair.at("quality").at("passed").get<bool>());
  EXPECT_TRUE(pair.at("memorization").at("flagged").get<bool>());
  EXPECT_NEAR(pair.at("memorization").at("ratio").get<double>(), 0.05, 1e-12);
  EXPECT_EQ(pair.at("sha256").at("label").get<std::string>().size(), 64u);
  EXPECT_TRUE(fs::exists(dir_ / "checked" / "dataset-card.md"));
}

TEST_F(GenerateQualityCheck, WhenEveryTryFailsTheLastImageIsKeptAndTheReportSaysSo) {
  const auto r = generate(7, "failing", {"--quality-check", statistics(5000, 6000), "--quality-tries", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("image seed 7: quality check failed on all 1 tries: liver median"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "failing" / "sample_seed7_rank0_image.nii.gz"));
  const auto report = read_json(dir_ / "failing" / "sample_seed7_rank0_quality.json");
  EXPECT_FALSE(report.at("passed").get<bool>());
  EXPECT_EQ(report.at("tries").size(), 1u);
  // Without --label there are no organs to judge.
  const auto no_label = test::run_process({test::engine_binary(), "generate", (dir_ / "run").string(), test::k_on_cpu,
                                           "--quality-check", statistics(0, 1), "--output-dir", (dir_ / "x").string()},
                                          dir_.path().string());
  EXPECT_NE(no_label.exit_code, 0);
  EXPECT_NE(no_label.err.find("--quality-check: the organs to judge are a label map's; give --label"),
            std::string::npos)
      << no_label.err;
}

}  // namespace
}  // namespace medsynth
