// Datasets: simulated splits held out from each other, folders (sorted,
// split, broken files caught at construction), CSV manifests (errors with
// line numbers), preprocessing of what get() returns, and --data overrides.
#include "data/volume_dataset.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "data/volume_listing.hpp"
#include "data_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using test::TempDir;
using test::write_small_ct;

TEST(SimulatedDataset, ValPhantomsAreNeverTrainPhantoms) {
  const DataSpec spec = test::tiny_simulated_spec(20, 8);
  const VolumeDataset train(spec, "train", 42);
  const VolumeDataset val(spec, "val", 42);
  ASSERT_EQ(train.size(), 20u);
  ASSERT_EQ(val.size(), 8u);
  std::set<std::string> train_ids;
  for (std::size_t i = 0; i < train.size(); ++i) train_ids.insert(train.id(i));
  EXPECT_EQ(train_ids.size(), 20u);
  for (std::size_t i = 0; i < val.size(); ++i) {
    EXPECT_EQ(train_ids.count(val.id(i)), 0u) << val.id(i);
    EXPECT_EQ(val.id(i), "phantom-" + std::to_string(val.phantom_seed(i)));
  }
  // The seed derivation keeps the splits apart for any index, not only these.
  std::set<std::uint64_t> seeds;
  for (std::size_t i = 0; i < 5000; ++i) {
    seeds.insert(phantom_seed_for(7, false, i));
    seeds.insert(phantom_seed_for(7, true, i));
  }
  EXPECT_EQ(seeds.size(), 10000u);
}

TEST(SimulatedDataset, BaseSeedDecidesThePhantomsAndGetIsPreprocessed) {
  const DataSpec spec = test::tiny_simulated_spec(3, 1);
  const VolumeDataset a(spec, "train", 1);
  const VolumeDataset b(spec, "train", 1);
  const VolumeDataset c(spec, "train", 2);
  EXPECT_EQ(a.id(0), b.id(0));
  EXPECT_NE(a.id(0), c.id(0));
  const Volume& v = a.get(1);
  EXPECT_EQ(v.size, (std::array<std::size_t, 3>{12, 12, 10}));
  float lo = 1, hi = 0;
  for (float x : v.voxels) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_GE(lo, 0.0f);  // CT window [-1000, 1000] -> [0, 1]
  EXPECT_LE(hi, 1.0f);
  EXPECT_LT(lo, 0.05f);  // air
  EXPECT_GT(hi, 0.5f);   // tissue and bone
  EXPECT_EQ(b.get(1).voxels, v.voxels);
  EXPECT_THROW(VolumeDataset(spec, "test", 1), UsageError);
  // "all" (eval --data): the train phantoms, then the held-out ones.
  const VolumeDataset all(spec, "all", 1);
  const VolumeDataset val(spec, "val", 1);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all.id(2), a.id(2));
  EXPECT_EQ(all.id(3), val.id(0));
}

TEST(SimulatedDataset, TargetSpacingResamples) {
  DataSpec spec = test::tiny_simulated_spec(1, 1);
  spec.target_spacing = std::array<double, 3>{40.0, 40.0, 48.0};
  const VolumeDataset ds(spec, "train", 3);
  EXPECT_EQ(ds.get(0).size, (std::array<std::size_t, 3>{6, 6, 5}));
  EXPECT_EQ(ds.get(0).spacing, (std::array<double, 3>{40.0, 40.0, 48.0}));
}

TEST(SplitRange, HoldsOutTheLastFractionWithAtLeastOneEach) {
  EXPECT_EQ(split_range(10, 0.2, false), std::make_pair(std::size_t(0), std::size_t(8)));
  EXPECT_EQ(split_range(10, 0.2, true), std::make_pair(std::size_t(8), std::size_t(10)));
  EXPECT_EQ(split_range(2, 0.2, false), std::make_pair(std::size_t(0), std::size_t(1)));
  EXPECT_EQ(split_range(2, 0.2, true), std::make_pair(std::size_t(1), std::size_t(2)));
  EXPECT_EQ(split_range(3, 0.9, false), std::make_pair(std::size_t(0), std::size_t(1)));
  EXPECT_EQ(split_range(1, 0.5, true), std::make_pair(std::size_t(1), std::size_t(1)));
  EXPECT_EQ(split_range(5, 0.0, true), std::make_pair(std::size_t(5), std::size_t(5)));
}

DataSpec folder_spec(const std::string& path) {
  DataSpec spec;
  spec.source = DataSource::folder;
  spec.path = path;
  spec.val_fraction = 0.25;
  return spec;
}

TEST(FolderDataset, SortedFilesSplitAndPreprocessed) {
  TempDir dir("data-folder");
  write_small_ct(dir / "c.nii.gz", -200.0f);
  write_small_ct(dir / "a.nii.gz", -600.0f);
  write_small_ct(dir / "d.nii", 200.0f);
  write_small_ct(dir / "b.nii.gz", -400.0f);
  test::write_bytes(dir / "notes.txt", "not a volume");
  std::filesystem::create_directory(dir / "empty_subfolder");
  const VolumeDataset train(folder_spec(dir.path().string()), "train", 0);
  const VolumeDataset val(folder_spec(dir.path().string()), "val", 0);
  ASSERT_EQ(train.size(), 3u);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(train.id(0), "a");
  EXPECT_EQ(train.id(1), "b");
  EXPECT_EQ(train.id(2), "c");
  EXPECT_EQ(val.id(0), "d");
  EXPECT_EQ(VolumeDataset(folder_spec(dir.path().string()), "all", 0).size(), 4u);
  // Voxel i of b held -400 + i HU: (-400 + i + 1000) / 2000 after the window.
  const Volume& b = train.get(1);
  ASSERT_EQ(b.voxel_count(), 120u);
  EXPECT_NEAR(b.voxels[0], 0.3, 1e-6);
  EXPECT_NEAR(b.voxels[119], (600.0 + 119.0) / 2000.0, 1e-6);
  EXPECT_DOUBLE_EQ(b.spacing[1], 1.5);
}

// data.max_volumes: a quick run on the first N volumes, still split into training and validation.
TEST(FolderDataset, MaxVolumesKeepsTheFirstNBeforeTheSplit) {
  TempDir dir("data-max-volumes");
  for (const char* name : {"d.nii.gz", "b.nii.gz", "a.nii.gz", "c.nii.gz", "e.nii.gz"})
    write_small_ct(dir / name, 0.0f);
  DataSpec spec = folder_spec(dir.path().string());
  spec.max_volumes = 3;
  spec.val_fraction = 0.34;
  const VolumeDataset train(spec, "train", 0);
  const VolumeDataset val(spec, "val", 0);
  ASSERT_EQ(train.size(), 2u);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(train.id(0), "a");
  EXPECT_EQ(train.id(1), "b");
  EXPECT_EQ(val.id(0), "c");
  spec.max_volumes = 0;
  EXPECT_EQ(VolumeDataset(spec, "all", 0).size(), 5u);
  spec.max_volumes = 10;
  EXPECT_EQ(VolumeDataset(spec, "all", 0).size(), 5u);
}

TEST(FolderDataset, TruncatedFileAmongGoodOnesFailsAtConstructionNamingIt) {
  TempDir dir("data-truncated");
  write_small_ct(dir / "a.nii.gz", -500.0f);
  const std::string good = write_small_ct(dir / "c.nii.gz", 0.0f);
  write_small_ct(dir / "d.nii.gz", 100.0f);
  const std::string bytes = test::read_bytes(good);
  const std::string broken = (dir / "b.nii.gz").string();
  test::write_bytes(broken, bytes.substr(0, bytes.size() / 2));
  try {
    VolumeDataset train(folder_spec(dir.path().string()), "train", 0);
    FAIL() << "a truncated file was accepted";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), broken);
    EXPECT_NE(std::string(e.what()).find("b.nii.gz"), std::string::npos);
  }
  // The held-out file is fine, so the val split builds.
  EXPECT_EQ(VolumeDataset(folder_spec(dir.path().string()), "val", 0).size(), 1u);
}

TEST(FolderDataset, EmptyOrMissingFolderIsAClearDataError) {
  TempDir dir("data-empty");
  try {
    VolumeDataset ds(folder_spec(dir.path().string()), "train", 0);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), dir.path().string());
    EXPECT_NE(e.reason().find("no volumes (.nii, .nii.gz, .nrrd"), std::string::npos) << e.what();
  }
  EXPECT_THROW(VolumeDataset(folder_spec((dir / "missing").string()), "train", 0), DataError);
  DataSpec no_path = folder_spec("");
  EXPECT_THROW(VolumeDataset(no_path, "train", 0), ConfigError);
}

TEST(FolderDataset, DicomSeriesFoldersAreListedAsVolumes) {
  TempDir dir("data-dicom");
  write_small_ct(dir / "a.nii.gz", 0.0f);
  std::filesystem::create_directory(dir / "b_series");
  std::string dicom(132, '\0');
  dicom.replace(128, 4, "DICM");
  test::write_bytes(dir / "b_series" / "IM0001", dicom);
  const auto entries = list_volume_folder(dir.path().string());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0].dicom_series);
  EXPECT_TRUE(entries[1].dicom_series);
  EXPECT_EQ(entries[1].id, "b_series");
}

// Writes a manifest and returns the DataError message its dataset throws ("" if none).
std::string manifest_error(const TempDir& dir, const std::string& text) {
  const std::string csv = (dir / "manifest.csv").string();
  test::write_bytes(csv, text);
  DataSpec spec;
  spec.source = DataSource::csv;
  spec.path = csv;
  try {
    VolumeDataset ds(spec, "train", 0);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvDataset, ErrorsCarryTheLineNumber) {
  TempDir dir("data-csv-errors");
  write_small_ct(dir / "a.nii.gz", 0.0f);
  const std::string csv = (dir / "manifest.csv").string();
  EXPECT_EQ(manifest_error(dir, "subject,image\ns1,a.nii.gz\n\ns2,\n"), csv + ":4: column 'image' is empty");
  EXPECT_EQ(manifest_error(dir, "subject,label\ns1,a.nii.gz\n"),
            csv + ":1: no column 'image' in the header (columns: subject, label)");
  EXPECT_EQ(manifest_error(dir, "image\na.nii.gz\nmissing.nii.gz\n"), csv + ":3: image 'missing.nii.gz' does not exist");
  EXPECT_EQ(manifest_error(dir, "image,subject\na.nii.gz,s1,extra\n"),
            csv + ":2: has 3 fields, the header on line 1 has 2");
  EXPECT_EQ(manifest_error(dir, "image\n"), csv + ": no images listed");
  EXPECT_EQ(manifest_error(dir, ""), csv + ": empty manifest (expected a header row with a column 'image')");
}

TEST(CsvDataset, RelativeAndAbsolutePathsQuotedFieldsAndTheSplit) {
  TempDir dir("data-csv");
  std::filesystem::create_directory(dir / "images");
  write_small_ct(dir / "images" / "x1.nii.gz", -100.0f);
  write_small_ct(dir / "images" / "x2.nii.gz", 0.0f);
  const std::string abs = write_small_ct(dir / "images" / "x3.nii", 100.0f);
  test::write_bytes(dir / "m.csv", "subject,image,note\r\n"
                                   "s1,images/x1.nii.gz,\"first, with a comma\"\r\n"
                                   "s2,\"images/x2.nii.gz\",\"say \"\"hi\"\"\"\r\n"
                                   "s3," + abs + ",\r\n");
  DataSpec spec;
  spec.source = DataSource::csv;
  spec.path = (dir / "m.csv").string();
  spec.val_fraction = 0.3;
  const VolumeDataset train(spec, "train", 0);
  const VolumeDataset val(spec, "val", 0);
  ASSERT_EQ(train.size(), 2u);
  ASSERT_EQ(val.size(), 1u);
  EXPECT_EQ(train.id(0), "x1");
  EXPECT_EQ(train.id(1), "x2");
  EXPECT_EQ(val.id(0), "x3");
  EXPECT_EQ(val.path(0), abs);
  EXPECT_NEAR(train.get(0).voxels[0], 0.45, 1e-6);
}

TEST(DataOverride, FolderOrCsvSetsTheSourceAndAnythingElseIsRefused) {
  TempDir dir("data-override");
  test::write_bytes(dir / "list.csv", "image\n");
  test::write_bytes(dir / "x.txt", "");
  DataSpec spec;
  apply_data_override(spec, dir.path().string());
  EXPECT_EQ(spec.source, DataSource::folder);
  EXPECT_EQ(spec.path, dir.path().string());
  apply_data_override(spec, (dir / "list.csv").string());
  EXPECT_EQ(spec.source, DataSource::csv);
  EXPECT_THROW(apply_data_override(spec, (dir / "x.txt").string()), DataError);
  EXPECT_THROW(apply_data_override(spec, (dir / "nothing").string()), DataError);
}

}  // namespace
}  // namespace medsynth
