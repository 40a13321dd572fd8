// write_dicom_series: a CT volume in RAS-flipped LPS geometry goes out as a
// DICOM series and comes back through our own DICOM reader (voxels within the
// rescale rounding, geometry within 1e-4); the tags of the files carry the
// synthetic mark and proper UIDs; DCMTK's dcmdump parses every file without a
// warning; out_dir rules and bad volumes are refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <itkGDCMImageIO.h>
#include <itkMetaDataObject.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "support/temp_dir.hpp"
#include "volume/dicom_export.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

// HU from -1000 to 1500, not on integers, in the geometry `generate` writes
// (RAS axes in LPS: direction diag(-1, -1, 1)), anisotropic spacing.
Volume make_ct_volume() {
  Volume v = make_volume({20, 16, 6}, {0.7, 0.8, 2.5});
  v.origin = {12.5, -30.25, 40.0};
  v.direction = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  const std::size_t n = v.voxels.size();
  for (std::size_t i = 0; i < n; ++i) v.voxels[i] = -1000.0f + 2500.0f * static_cast<float>(i) / (n - 1) + 0.3f;
  v.voxels[0] = -1000.0f;
  v.voxels[n - 1] = 1500.0f;
  return v;
}

std::vector<fs::path> series_files(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string tag(const fs::path& file, const std::string& key) {
  auto io = itk::GDCMImageIO::New();
  io->SetFileName(file.string());
  io->ReadImageInformation();
  std::string value;
  if (!itk::ExposeMetaData<std::string>(io->GetMetaDataDictionary(), key, value)) return "<absent>";
  while (!value.empty() && (value.back() == ' ' || value.back() == '\0')) value.pop_back();
  return value;
}

void expect_same_geometry(const Volume& back, const Volume& expected) {
  EXPECT_EQ(back.size, expected.size);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(back.spacing[i], expected.spacing[i], 1e-4) << "spacing " << i;
    EXPECT_NEAR(back.origin[i], expected.origin[i], 1e-4) << "origin " << i;
  }
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back.direction[i], expected.direction[i], 1e-4) << "direction " << i;
}

// The numbers of a multi-valued decimal element in dcmdump's text: the
// values between "[" and "]" on the line of `tag`, split at backslashes.
std::vector<double> dumped_numbers(const std::string& dump, const std::string& tag) {
  const auto line = dump.find(tag);
  if (line == std::string::npos) return {};
  const auto open = dump.find('[', line), close = dump.find(']', line);
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<double> numbers;
  std::stringstream values(dump.substr(open + 1, close - open - 1));
  for (std::string value; std::getline(values, value, '\\');) numbers.push_back(std::stod(value));
  return numbers;
}

class DicomExport : public ::testing::Test {
 protected:
  test::TempDir dir_{"dicom_export"};
  Volume volume_ = make_ct_volume();
};

// The volume's voxels, as the series stores them: a RAS volume's rows and
// columns run the other way (issue 53 item 2), its slices keep their order.
Volume as_a_scanner_stores(const Volume& v) {
  Volume stored = v;
  stored.direction = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  stored.origin[0] = v.origin[0] - static_cast<double>(v.size[0] - 1) * v.spacing[0];
  stored.origin[1] = v.origin[1] - static_cast<double>(v.size[1] - 1) * v.spacing[1];
  for (std::size_t z = 0; z < v.size[2]; ++z)
    for (std::size_t y = 0; y < v.size[1]; ++y)
      for (std::size_t x = 0; x < v.size[0]; ++x) stored.at(x, y, z) = v.at(v.size[0] - 1 - x, v.size[1] - 1 - y, z);
  return stored;
}

TEST_F(DicomExport, RoundTripsVoxelsAndGeometryThroughOurReader) {
  const fs::path out = dir_ / "series";
  write_dicom_series(volume_, {}, out.string());
  ASSERT_EQ(series_files(out).size(), 6u);
  const Volume back = read_volume(out.string());
  const Volume expected = as_a_scanner_stores(volume_);  // the same voxels in space
  expect_same_geometry(back, expected);
  ASSERT_EQ(back.voxels.size(), expected.voxels.size());
  float worst = 0;
  for (std::size_t i = 0; i < back.voxels.size(); ++i)
    worst = std::max(worst, std::abs(back.voxels[i] - expected.voxels[i]));
  EXPECT_LE(worst, 0.5f + 1e-3f);
}

// Issue 53 item 2: a RAS volume (every MAISI output) was stored with
// ImageOrientationPatient [-1,0,0,0,-1,0], so a stack viewer drew the
// patient's left on the screen's left and anterior at the bottom. DCMTK's
// dcmdump reads what a PACS reads: the orientation a scanner writes, and the
// first stored pixel at the patient's right-anterior corner.
TEST_F(DicomExport, StoresARasVolumeAsAScannerStoresAxialCt) {
  if (std::system("command -v dcmdump > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "dcmdump (Debian package dcmtk, installer/packages/test.txt) is not installed";
  volume_.at(19, 15, 0) = 1400.0f;  // the patient's right-anterior corner (LPS: smallest x and y)
  const fs::path out = dir_ / "series";
  write_dicom_series(volume_, {}, out.string());
  const fs::path first = series_files(out).front(), log = dir_ / "dump.log";
  const std::string command =
      "dcmdump +P 0020,0037 +P 0020,0032 '" + first.string() + "' > '" + log.string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << test::read_bytes(log);
  const std::string text = test::read_bytes(log);
  const auto orientation = dumped_numbers(text, "(0020,0037)");
  const std::vector<double> scanner{1, 0, 0, 0, 1, 0};
  ASSERT_EQ(orientation.size(), 6u) << text;
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(orientation[i], scanner[i], 1e-6) << text;
  // x = 12.5 - 19 x 0.7, y = -30.25 - 15 x 0.8: the corner nearest the right and the front.
  const auto position = dumped_numbers(text, "(0020,0032)");
  ASSERT_EQ(position.size(), 3u) << text;
  EXPECT_NEAR(position[0], -0.8, 1e-4);
  EXPECT_NEAR(position[1], -42.25, 1e-4);
  EXPECT_NEAR(position[2], 40.0, 1e-4);
  const Volume back = read_volume(out.string());
  EXPECT_NEAR(back.at(0, 0, 0), 1400.0f, 0.5f);
}

TEST_F(DicomExport, WritesALeftHandedVolumeFromItsLastSlice) {
  volume_.direction = {1, 0, 0, 0, 1, 0, 0, 0, -1};
  const fs::path out = dir_ / "series";
  write_dicom_series(volume_, {}, out.string());
  const Volume back = read_volume(out.string());
  // Same voxels in space, described along the flipped third axis.
  Volume expected = volume_;
  expected.direction = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  expected.origin[2] = volume_.origin[2] - 5 * volume_.spacing[2];
  expect_same_geometry(back, expected);
  for (std::size_t z = 0; z < 6; ++z)
    EXPECT_NEAR(back.at(3, 4, z), volume_.at(3, 4, 5 - z), 0.5 + 1e-3) << "z " << z;
}

TEST_F(DicomExport, MarksEveryFileSyntheticWithOneSeriesAndDistinctInstances) {
  const fs::path out = dir_ / "series";
  DicomExportOptions options;
  options.series_description = "phantom test";
  options.provenance = "seed 7, unet checkpoint sha256 0123456789abcdef";
  options.patient_id = "MEDSYNTH-SYNTHETIC-7";
  write_dicom_series(volume_, options, out.string());
  const auto files = series_files(out);
  const fs::path first = files.front();
  EXPECT_EQ(tag(first, "0010|0010"), "SYNTHETIC^MEDSYNTH");
  EXPECT_EQ(tag(first, "0010|0020"), "MEDSYNTH-SYNTHETIC-7");
  EXPECT_EQ(tag(first, "0008|0060"), "CT");
  EXPECT_EQ(tag(first, "0008|0016"), "1.2.840.10008.5.1.4.1.1.2");
  EXPECT_EQ(tag(first, "0008|0008"), "DERIVED\\SECONDARY\\AXIAL");
  EXPECT_EQ(tag(first, "0028|0301"), "NO");
  EXPECT_EQ(tag(first, "0008|0070"), "medsynth");
  EXPECT_EQ(tag(first, "0008|103e"), "phantom test");
  EXPECT_EQ(tag(first, "0028|1054"), "HU");
  EXPECT_EQ(tag(first, "0028|1052"), "-1024");
  EXPECT_EQ(tag(first, "0028|1053"), "1");
  EXPECT_EQ(tag(first, "0028|0100"), "16");
  EXPECT_EQ(tag(first, "0028|0103"), "1");  // signed
  EXPECT_EQ(tag(first, "0028|0030"), ".8\\.7");  // row spacing (y) first, as GDCM words it
  EXPECT_EQ(tag(first, "0018|0050"), "2.5");
  for (const std::string key : {"0020|4000", "0008|2111"}) {
    EXPECT_NE(tag(first, key).find("SYNTHETIC IMAGE generated by medsynth"), std::string::npos) << key;
    EXPECT_NE(tag(first, key).find("seed 7, unet checkpoint sha256 0123456789abcdef"), std::string::npos) << key;
  }
  std::set<std::string> sops, series, studies, frames;
  for (std::size_t k = 0; k < files.size(); ++k) {
    sops.insert(tag(files[k], "0008|0018"));
    series.insert(tag(files[k], "0020|000e"));
    studies.insert(tag(files[k], "0020|000d"));
    frames.insert(tag(files[k], "0020|0052"));
    EXPECT_EQ(tag(files[k], "0020|0013"), std::to_string(k + 1));
  }
  EXPECT_EQ(sops.size(), files.size());
  EXPECT_EQ(series.size(), 1u);
  EXPECT_EQ(studies.size(), 1u);
  EXPECT_EQ(frames.size(), 1u);
  EXPECT_EQ(sops.count("<absent>") + series.count("<absent>") + frames.count("<absent>"), 0u);
  EXPECT_NE(*series.begin(), *studies.begin());
}

TEST_F(DicomExport, WritesMrWithoutHounsfieldUnits) {
  for (auto& v : volume_.voxels) v = (v + 1000.0f) / 2500.0f;  // 0..1, as a normalised MR
  const fs::path out = dir_ / "mr";
  DicomExportOptions options;
  options.modality = DicomModality::mr;
  write_dicom_series(volume_, options, out.string());
  const auto first = series_files(out).front();
  EXPECT_EQ(tag(first, "0008|0060"), "MR");
  EXPECT_EQ(tag(first, "0008|0016"), "1.2.840.10008.5.1.4.1.1.4");
  EXPECT_NE(tag(first, "0028|1054"), "HU");  // GDCM writes US (unspecified)
  const Volume back = read_volume(out.string()), expected = as_a_scanner_stores(volume_);
  for (std::size_t i = 0; i < back.voxels.size(); ++i)
    ASSERT_NEAR(back.voxels[i], expected.voxels[i], 0.5 / 4095 + 1e-6) << "voxel " << i;
}

TEST_F(DicomExport, EveryFileParsesInDcmdumpWithoutWarnings) {
  if (std::system("command -v dcmdump > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "dcmdump (Debian package dcmtk, installer/packages/test.txt) is not installed";
  const fs::path out = dir_ / "series";
  write_dicom_series(volume_, {}, out.string());
  for (const auto& file : series_files(out)) {
    const fs::path log = dir_ / "dcmdump.log";
    const std::string command = "dcmdump -ll warn '" + file.string() + "' > '" + log.string() + "' 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << file << ":\n" << test::read_bytes(log);
    const std::string text = test::read_bytes(log);
    EXPECT_EQ(text.find("W: "), std::string::npos) << text;
    EXPECT_EQ(text.find("E: "), std::string::npos) << text;
    EXPECT_NE(text.find("(0028,0301) CS [NO]"), std::string::npos) << text;
  }
}

TEST_F(DicomExport, ChoosesSlopeOneWhileTheRangeFitsInt16) {
  auto r = choose_dicom_rescale(DicomModality::ct, -1000, 1500);
  EXPECT_EQ(r.slope, 1.0);
  EXPECT_EQ(r.intercept, -1024.0);
  r = choose_dicom_rescale(DicomModality::ct, -1000, 40000);
  EXPECT_EQ(r.slope, 1.0);
  EXPECT_EQ(r.intercept, 19500.0);
  r = choose_dicom_rescale(DicomModality::ct, -100000, 100000);
  EXPECT_NEAR(r.slope, 200000.0 / 65535, 1e-9);
  r = choose_dicom_rescale(DicomModality::mr, 0, 1);
  EXPECT_NEAR(r.slope, 1.0 / 4095, 1e-12);
  EXPECT_EQ(r.intercept, 0.0);
}

TEST_F(DicomExport, RefusesAFolderInUseAndLeavesNothingBehindOnBadInput) {
  const fs::path used = dir_ / "used";
  fs::create_directory(used);
  test::write_bytes(used / "x.dcm", "x");
  try {
    write_dicom_series(volume_, {}, used.string());
    FAIL() << "no UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(used.string() + ": folder is not empty"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_dicom_series(volume_, {}, (used / "x.dcm").string()), UsageError);

  const fs::path empty = dir_ / "empty";
  fs::create_directory(empty);
  write_dicom_series(volume_, {}, empty.string());  // an empty folder is fine
  EXPECT_EQ(series_files(empty).size(), 6u);

  volume_.voxels[5] = std::nanf("");
  DicomExportOptions options;
  options.source = "gen.nii.gz";
  try {
    write_dicom_series(volume_, options, (dir_ / "nan").string());
    FAIL() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), "gen.nii.gz");
  }
  volume_.voxels[5] = 0;
  volume_.direction = {1, 0.5, 0, 0, 1, 0, 0, 0, 1};
  EXPECT_THROW(write_dicom_series(volume_, {}, (dir_ / "sheared").string()), DataError);
  options.series_description = std::string(65, 'a');
  EXPECT_THROW(write_dicom_series(volume_, options, (dir_ / "long").string()), UsageError);
  // Patient fields: named in the message, checked before any folder is made.
  const auto refusal = [&](DicomExportOptions bad) {
    try {
      write_dicom_series(volume_, bad, (dir_ / "patient").string());
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no UsageError");
  };
  DicomExportOptions bad;
  bad.patient_name = "SMITH\\JOHN";
  EXPECT_EQ(refusal(bad).rfind("patient_name: a backslash", 0), 0u) << refusal(bad);
  bad = {};
  bad.patient_id = "";
  EXPECT_EQ(refusal(bad).rfind("patient_id: must not be empty", 0), 0u) << refusal(bad);
  bad = {};
  bad.series_description = "caf\xc3\xa9";
  EXPECT_EQ(refusal(bad).rfind("series_description: only printable ASCII", 0), 0u) << refusal(bad);
  // Only the folders made above: no temp folder left.
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_.path())) names.insert(entry.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"used", "empty"}));
}

// Issue 50: an export killed mid-series (SIGKILL: nothing of its own runs)
// leaves its hidden temp folder; the next export to that folder removes it,
// and only it: a live process's folder and another host's stay.
TEST_F(DicomExport, TheTempFolderOfAKilledExportIsRemovedByTheNext) {
  const fs::path out = dir_ / "ct";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    DicomExportOptions options;
    options.on_slice_written = [](std::size_t k, std::size_t) {
      if (k == 2) ::raise(SIGKILL);
    };
    try {
      write_dicom_series(volume_, options, out.string());
    } catch (...) {
    }
    ::_exit(3);  // not reached when the kill came
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  const auto hidden = [&] {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_.path()))
      if (entry.path().filename().string().rfind(".ct.tmp-", 0) == 0) names.insert(entry.path().filename().string());
    return names;
  };
  const auto left = hidden();
  ASSERT_EQ(left.size(), 1u) << "the killed export's temp folder";
  const std::string killed = *left.begin();
  EXPECT_NE(killed.find("-" + std::to_string(child) + "-"), std::string::npos) << killed << " names its creator";

  const std::string prefix = killed.substr(0, killed.find("-" + std::to_string(child) + "-") + 1);
  const std::string alive = prefix + "1-0000beef";  // pid 1 lives as long as the machine
  const std::string elsewhere = ".ct.tmp-otherhost-" + std::to_string(child) + "-0000cafe";
  fs::create_directory(dir_ / alive);
  fs::create_directory(dir_ / elsewhere);
  write_dicom_series(volume_, {}, out.string());
  EXPECT_EQ(series_files(out).size(), 6u);
  EXPECT_EQ(hidden(), (std::set<std::string>{alive, elsewhere}));
}

}  // namespace
}  // namespace medsynth
