// Issue 54 item 6: a mixed set (abdomen + chest CT, T1 + T2 MR) carries each
// image's class and body regions in its datalist entry or manifest row, under
// NV-Generate's keys; a wrong value is refused naming the entry and the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "data/case_listing.hpp"
#include "data/image_conditioning.hpp"
#include "data/volume_listing.hpp"
#include "support/error_text.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using test::error_of;

void touch_volume(const fs::path& p) { std::ofstream(p) << "x"; }  // listed, not read

TEST(ImageConditioning, DatalistEntriesCarryTheirOwnClassAndBodyRegions) {
  test::TempDir dir("conditioning-datalist");
  for (const char* name : {"abdomen.nii.gz", "chest.nii.gz", "plain.nii.gz"}) touch_volume(dir / name);
  const fs::path json = dir / "list.json";
  std::ofstream(json) << R"({"training": [
    {"image": "abdomen.nii.gz", "modality": "ct_contrast", "top_region_index": [0, 0, 1, 0], "bottom_region_index": [0, 0, 0, 1]},
    {"image": "chest.nii.gz", "modality": 2, "top_region_index": [0, 1, 0, 0]},
    {"image": "plain.nii.gz", "modality": null}]})";
  const auto cases = read_datalist(json.string(), "training", "");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].conditioning.modality, 3);
  EXPECT_EQ(cases[0].conditioning.top_region_index, (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(cases[0].conditioning.bottom_region_index, (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(cases[1].conditioning.modality, 2);
  EXPECT_TRUE(cases[1].conditioning.bottom_region_index.empty());
  EXPECT_TRUE(cases[2].conditioning.empty()) << "no key: the job's generate.* values";

  // The volumes a job reads keep it.
  DataSpec data;
  data.source = DataSource::datalist;
  data.path = json.string();
  const auto volumes = list_job_volumes(data);
  ASSERT_EQ(volumes.size(), 3u);
  EXPECT_EQ(volumes[0].conditioning, cases[0].conditioning);
}

TEST(ImageConditioning, AWrongClassOrRegionIsRefusedNamingTheEntryAndTheKey) {
  test::TempDir dir("conditioning-refused");
  touch_volume(dir / "a.nii.gz");
  const fs::path json = dir / "list.json";
  const auto refusal = [&](const std::string& keys) {
    std::ofstream(json) << R"({"training": [{"image": "a.nii.gz", )" + keys + "}]}";
    return error_of([&] { read_datalist(json.string(), "training", ""); });
  };
  for (const std::string keys : {R"("modality": "mri_t5")", R"("modality": 5)", R"("modality": [1])"}) {
    const std::string message = refusal(keys);
    EXPECT_NE(message.find("list.json: training[0]"), std::string::npos) << keys << ": " << message;
    EXPECT_NE(message.find("modality"), std::string::npos) << keys << ": " << message;
    EXPECT_NE(message.find("modality_mapping.json"), std::string::npos) << keys << ": " << message;
  }
  for (const std::string keys : {R"("top_region_index": [0, 1, 0])", R"("top_region_index": [0, 2, 0, 0])",
                                 R"("top_region_index": "chest")", R"("bottom_region_index": [0, 1, 0, 0, 0])"}) {
    const std::string message = refusal(keys);
    EXPECT_NE(message.find("list.json: training[0]"), std::string::npos) << keys << ": " << message;
    EXPECT_NE(message.find(keys.substr(1, keys.find('"', 1) - 1)), std::string::npos) << keys << ": " << message;
    EXPECT_NE(message.find("4 values, each 0 or 1"), std::string::npos) << keys << ": " << message;
  }
}

TEST(ImageConditioning, ManifestColumnsCarryItTooAndAnEmptyCellIsTheJobs) {
  test::TempDir dir("conditioning-manifest");
  touch_volume(dir / "t1.nii.gz");
  touch_volume(dir / "t2.nii.gz");
  const fs::path csv = dir / "images.csv";
  std::ofstream(csv) << "image,modality,top_region_index\n"
                        "t1.nii.gz,mri_t1,\n"
                        "t2.nii.gz,mri_t2,\"[1, 0, 0, 0]\"\n";
  const auto entries = read_volume_manifest(csv.string());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].conditioning.modality, 9);
  EXPECT_TRUE(entries[0].conditioning.top_region_index.empty());
  EXPECT_EQ(entries[1].conditioning.modality, 10);
  EXPECT_EQ(entries[1].conditioning.top_region_index, (std::vector<double>{1, 0, 0, 0}));

  std::ofstream(csv) << "image,top_region_index\nt1.nii.gz,\"1,0\"\n";
  const std::string message = error_of([&] { read_volume_manifest(csv.string()); });
  EXPECT_NE(message.find("images.csv:2"), std::string::npos) << message;
  EXPECT_NE(message.find("top_region_index '1,0'"), std::string::npos) << message;
}

TEST(ImageConditioning, WrittenUnderNvGeneratesKeysAndReadBackTheSame) {
  ImageConditioning c;
  c.modality = 10;
  c.top_region_index = {1, 0, 0, 0};
  nlohmann::json j = nlohmann::json::object();
  write_image_conditioning(c, j);
  EXPECT_EQ(j.at("modality"), "mri_t2");
  EXPECT_EQ(j.at("top_region_index").dump(), "[1,0,0,0]") << "whole numbers, as NV-Generate writes them";
  EXPECT_FALSE(j.contains("bottom_region_index"));
  EXPECT_EQ(read_image_conditioning(j, "x.json"), c);
}

}  // namespace
}  // namespace medsynth
