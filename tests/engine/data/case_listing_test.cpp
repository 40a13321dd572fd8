// Multi-contrast cases (issue 35): BraTS 2023 and 2021 case folders and
// MONAI datalists are read as cases, contrasts by their file-name suffix in
// either spelling; a missing contrast names the case and the contrast; a job
// reading one contrast per case gets it from data.channels.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "config/job_loader.hpp"
#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "data/case_grids.hpp"
#include "data/case_listing.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_listing.hpp"
#include "support/brats_cases.hpp"
#include "support/oversized_json.hpp"
#include "support/error_text.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using test::error_of;

TEST(CaseListing, ContrastsAreTheFileNameSuffixInEitherBratsSpelling) {
  EXPECT_EQ(contrast_of_file("BraTS-GLI-00000-000-t1n.nii.gz", "BraTS-GLI-00000-000"), "t1n");
  EXPECT_EQ(contrast_of_file("BraTS2021_00000_T1CE.nii.gz", "BraTS2021_00000"), "t1ce");
  EXPECT_EQ(contrast_of_file("patient7_flair.nrrd", "other"), "flair");  // no case prefix: the last '_' part
  EXPECT_TRUE(same_contrast("t2f", "flair"));
  EXPECT_TRUE(same_contrast("T1C", "t1ce"));
  EXPECT_FALSE(same_contrast("t1n", "t1c"));
  EXPECT_FALSE(same_contrast("t2w", "flair"));
  EXPECT_EQ(translated_file_stem("/d/BraTS2021_00003/BraTS2021_00003_t1.nii.gz", "BraTS2021_00003", "t2f"),
            "BraTS2021_00003_flair");
  EXPECT_EQ(translated_file_stem("/d/BraTS-GLI-00003-000/BraTS-GLI-00003-000-t1n.nii.gz", "BraTS-GLI-00003-000", "t2f"),
            "BraTS-GLI-00003-000-t2f");
}

TEST(CaseListing, BratsFoldersOfBothYearsListTheirCasesAndSegmentations) {
  for (auto naming : {test::BratsNaming::brats2023, test::BratsNaming::brats2021}) {
    test::TempDir dir("brats-list");
    test::write_brats_folder(dir.path(), naming, 3, {8, 8, 8});
    const auto cases = list_case_folder(dir.path().string(), "seg");
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[1].id, test::brats_case_id(naming, 1));
    EXPECT_EQ(cases[1].contrasts.size(), 4u);
    EXPECT_TRUE(cases[1].label.ends_with("seg.nii.gz")) << cases[1].label;
    // data.channels in the 2023 spelling reads 2021 files too.
    EXPECT_EQ(
        fs::path(case_contrast_file(cases[2], "t2f")).filename().string(),
        test::brats_case_id(naming, 2) + test::brats_separator(naming) + test::brats_suffixes(naming)[3] + ".nii.gz");
  }
}

TEST(CaseListing, AMissingContrastNamesTheCaseAndTheContrast) {
  test::TempDir dir("brats-missing");
  test::write_brats_folder(dir.path(), test::BratsNaming::brats2023, 3, {8, 8, 8});
  fs::remove(dir / "BraTS-GLI-00001-000" / "BraTS-GLI-00001-000-t2w.nii.gz");
  DataSpec data;
  data.source = DataSource::folder;
  data.path = dir.path().string();
  data.channels = {"t2w"};
  data.val_fraction = 0;
  const std::string message = error_of([&] { VolumeDataset(data, "all", 1); });
  EXPECT_NE(message.find("case BraTS-GLI-00001-000 has no t2w contrast"), std::string::npos) << message;
  EXPECT_NE(message.find("t1c, t1n, t2f"), std::string::npos) << "what the case has: " << message;
}

TEST(CaseListing, AFolderOfCasesWithoutChannelsSaysWhichContrastsItHas) {
  test::TempDir dir("brats-nochannels");
  test::write_brats_folder(dir.path(), test::BratsNaming::brats2023, 2, {8, 8, 8});
  DataSpec data;
  data.source = DataSource::folder;
  data.path = dir.path().string();
  const std::string message = error_of([&] { list_job_volumes(data); });
  EXPECT_NE(message.find("data.channels"), std::string::npos) << message;
  EXPECT_NE(message.find("t1n"), std::string::npos) << message;
  // With one contrast named, every case gives that file, id = the case.
  data.channels = {"t1c"};
  const auto entries = list_job_volumes(data);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, "BraTS-GLI-00000-000");
  EXPECT_TRUE(entries[0].path.ends_with("-t1c.nii.gz"));
}

TEST(CaseListing, ADatalistListsTheSameCasesWithPathsUnderItsRoot) {
  test::TempDir dir("brats-datalist");
  test::write_brats_folder(dir / "data", test::BratsNaming::brats2021, 2, {8, 8, 8});
  {
    std::ofstream json(dir / "datalist.json");
    json << R"({"training": [
      {"image": ["BraTS2021_00000/BraTS2021_00000_t1.nii.gz", "BraTS2021_00000/BraTS2021_00000_t1ce.nii.gz",
                 "BraTS2021_00000/BraTS2021_00000_t2.nii.gz", "BraTS2021_00000/BraTS2021_00000_flair.nii.gz"],
       "label": "BraTS2021_00000/BraTS2021_00000_seg.nii.gz"},
      {"image": ["BraTS2021_00001/BraTS2021_00001_t1.nii.gz", "BraTS2021_00001/BraTS2021_00001_t1ce.nii.gz",
                 "BraTS2021_00001/BraTS2021_00001_t2.nii.gz", "BraTS2021_00001/BraTS2021_00001_flair.nii.gz"],
       "label": "BraTS2021_00001/BraTS2021_00001_seg.nii.gz", "fold": 0}]})";
  }
  const auto cases = read_datalist((dir / "datalist.json").string(), "training", (dir / "data").string());
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[1].id, "BraTS2021_00001");
  EXPECT_TRUE(case_contrast_file(cases[1], "t2f").ends_with("BraTS2021_00001_flair.nii.gz"));
  EXPECT_TRUE(cases[0].label.ends_with("_seg.nii.gz"));
  // Relative to the JSON's own folder, the files are not there: the entry is named.
  const std::string message = error_of([&] { read_datalist((dir / "datalist.json").string(), "training", ""); });
  EXPECT_NE(
      message.find("datalist.json: training[0]: image 'BraTS2021_00000/BraTS2021_00000_t1.nii.gz' does not exist"),
      std::string::npos)
      << message;
  EXPECT_NE(
      error_of([&] { read_datalist((dir / "datalist.json").string(), "validation", ""); }).find("no list 'validation'"),
      std::string::npos);
}

// Issue 50 item 9: a case id names generate's output folder OUTPUT/<id>/; a
// datalist entry whose file is "...nii.gz" gave the id "..", and the
// translation landed beside the output folder. "." and ".." are refused,
// naming the datalist and the entry.
TEST(CaseListing, ADatalistEntryWhoseCaseIdIsDotOrDotDotIsRefusedNamingTheEntry) {
  test::TempDir dir("brats-datalist-dots");
  for (const char* name : {"...nii.gz", "..nii.gz", "fine.nii.gz"}) test::write_bytes(dir / name, "not read here");
  const std::string json = (dir / "datalist.json").string();
  for (const auto& [file, id] : {std::pair<std::string, std::string>{"...nii.gz", ".."}, {"..nii.gz", "."}}) {
    std::ofstream(json) << R"({"training": [{"image": "fine.nii.gz"}, {"image": ")" + file + R"("}]})";
    const std::string message = error_of([&] { read_datalist(json, "training", ""); });
    EXPECT_NE(message.find(json + ": training[1]: gives the case id '" + id + "'"), std::string::npos) << message;
  }
  std::ofstream(json) << R"({"training": [{"image": "fine.nii.gz"}]})";
  EXPECT_EQ(read_datalist(json, "training", "").front().id, "fine");
}

// Issue 50 item 10: a NUL in a path was read up to the NUL (an entry
// "/etc/passwd\u0000x.nii.gz" was reported as "/etc/passwd"), a 10 MB path
// was printed twice over, and one file listed four times trained on three
// copies and validated on the fourth. Each is refused naming the entry; what
// is printed of a path is cut to 120 characters.
TEST(CaseListing, ADatalistPathWithANulOrTooLongAndAFileListedTwiceAreRefused) {
  test::TempDir dir("datalist-paths");
  test::write_bytes(dir / "a.nii.gz", "not read here");
  test::write_bytes(dir / "b.nii.gz", "not read here");
  const std::string json = (dir / "datalist.json").string();
  const auto refusal = [&](const std::string& entries) {
    std::ofstream(json) << R"({"training": [)" + entries + "]}";
    return error_of([&] { read_datalist(json, "training", ""); });
  };
  const std::string nul = refusal("{\"image\": \"a.nii.gz\"}, {\"image\": \"/etc/passwd\\u0000x.nii.gz\"}");
  EXPECT_NE(nul.find(json + ": training[1]: image '/etc/passwd\\0x.nii.gz' holds a NUL byte"), std::string::npos)
      << nul;
  const std::string long_path = refusal(R"({"image": ")" + std::string(10 << 20, 'a') + R"(.nii.gz"})");
  EXPECT_NE(long_path.find("... (10485767 bytes)' is longer than any path"), std::string::npos)
      << long_path.substr(0, 400);
  EXPECT_LT(long_path.size(), 1000u);
  const std::string twice = refusal(R"({"image": "a.nii.gz"}, {"image": "b.nii.gz"}, {"image": "./a.nii.gz"})");
  EXPECT_NE(twice.find(json + ": training[2]: lists " + (dir / "a.nii.gz").string() + ", which training[0] lists too"),
            std::string::npos)
      << twice;
  EXPECT_EQ(refusal(R"({"image": "a.nii.gz"}, {"image": "b.nii.gz"})"), "");
}

// Issue 50 item 8: a 150 MB datalist took 3.8 GB to parse. One over the
// cap (64 MiB, some 200 000 cases) is refused by its size, naming it.
TEST(CaseListing, ADatalistOverTheByteCapIsRefusedBeforeParsing) {
  test::TempDir dir("datalist-cap");
  const auto json = dir / "datalist.json";
  test::expect_refused_one_byte_over_the_cap(json, R"({"training": []})", k_case_list_json_cap.bytes,
                                             [&] { read_datalist(json.string(), "training", ""); });
}

TEST(CaseListing, BratsFolderIsAJobDataPathNotNoVolumes) {
  // The issue's first failure: `--data /datasets/BraTS2023` gave "no volume files".
  test::TempDir dir("brats-validate");
  test::write_brats_folder(dir.path(), test::BratsNaming::brats2023, 2, {8, 8, 8});
  const JobSpec job = load_job_text_with_overrides(
      "task: autoencoder\ndata:\n  source: folder\n  path: " + dir.path().string() + "\n  channels: [t1n]\n", {},
      "job");
  EXPECT_TRUE(validate_job(job).empty());
  const std::string message =
      error_of([&] { load_job_text_with_overrides("task: autoencoder\ndata:\n  channels: [t1n, t2w]\n", {}, "job"); });
  EXPECT_NE(message.find("data.channels"), std::string::npos) << message;
}

// Issue 50: the contrasts of every case are checked for one grid before step
// 0, a case the first batches never draw included: by the headers, and where
// they differ by the preprocessed volumes (which may still agree).
TEST(CaseListing, EveryCasesContrastsAreCheckedForOneGridBeforeAnyIsDrawn) {
  test::TempDir dir("brats-grids");
  test::write_brats_folder(dir.path(), test::BratsNaming::brats2023, 3, {8, 8, 8});
  const auto datasets = [&](const DataSpec& base) {
    std::vector<std::unique_ptr<VolumeDataset>> out;
    for (const char* contrast : {"t1n", "t2w"}) {
      DataSpec one = base;
      one.channels = {contrast};
      out.push_back(std::make_unique<VolumeDataset>(one, "all", 1));
    }
    return out;
  };
  DataSpec data;
  data.source = DataSource::folder;
  data.path = dir.path().string();
  data.val_fraction = 0;
  const auto same = datasets(data);
  EXPECT_NO_THROW(check_case_grids(*same[0], {same[1].get()}));

  // The last case's T2 at 2 mm: the same voxel count, another grid.
  const fs::path t2w = dir / "BraTS-GLI-00002-000" / "BraTS-GLI-00002-000-t2w.nii.gz";
  Volume coarse = read_volume(t2w.string());
  coarse.spacing = {2.0, 2.0, 2.0};
  write_volume(coarse, t2w.string());
  const auto off = datasets(data);
  const std::string message = error_of([&] { check_case_grids(*off[0], {off[1].get()}); });
  EXPECT_NE(message.find(t2w.string()), std::string::npos) << message;
  EXPECT_NE(message.find("case BraTS-GLI-00002-000: this contrast's grid differs"), std::string::npos) << message;

  // Resampled to 2 mm both lie on one grid: headers that differ are not
  // enough to refuse. The case's T1 at 16^3 x 1 mm covers what its T2 covers.
  const fs::path t1n = dir / "BraTS-GLI-00002-000" / "BraTS-GLI-00002-000-t1n.nii.gz";
  const Volume t1 = read_volume(t1n.string());
  Volume fine = make_volume({16, 16, 16}, {1.0, 1.0, 1.0});
  for (std::size_t z = 0; z < 16; ++z)
    for (std::size_t y = 0; y < 16; ++y)
      for (std::size_t x = 0; x < 16; ++x) fine.at(x, y, z) = t1.at(x / 2, y / 2, z / 2);
  write_volume(fine, t1n.string());
  data.target_spacing = std::array<double, 3>{2.0, 2.0, 2.0};
  const auto resampled = datasets(data);
  EXPECT_NO_THROW(check_case_grids(*resampled[0], {resampled[1].get()}));
}

}  // namespace
}  // namespace medsynth
