// read_volume on NRRD (.nrrd, .nhdr) and MetaImage (.mha, .mhd) files written
// by ITK itself: voxels and geometry come back, and the header checks refuse
// 4D, vector, oversized, truncated and garbage files with a DataError naming
// the file; check_volume_file (the check before training) refuses the same
// files with the same words without reading the voxels. Also reads nibabel's
// public anatomical.nii and Siemens DICOM slices when they are installed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include "expect_data_error.hpp"
#include "itk_fixtures.hpp"
#include "nifti_bytes.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_file_check.hpp"
#include "volume/volume_io.hpp"
#include "core/remove_tree.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;
using test::TextHeaderFormat;

TextHeaderFormat format_of(const std::string& extension) {
  return extension == ".nrrd" || extension == ".nhdr" ? TextHeaderFormat::nrrd : TextHeaderFormat::meta;
}

// ITK's writers pick attached or detached data by the lower-case extension,
// so an upper-case name is written lower-case and renamed.
void write_float(const Volume& volume, const fs::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  fs::path lower = path;
  lower.replace_extension(ext);
  test::write_float_with_itk(volume, lower, format_of(ext));
  if (lower != path) fs::rename(lower, path);
}

class TextHeaderRoundTrip : public ::testing::TestWithParam<std::string> {
 protected:
  test::TempDir dir_{"nrrd-mha-io"};
};

TEST_P(TextHeaderRoundTrip, KeepsVoxelsAndGeometry) {
  Volume original = test::make_test_volume();
  original.spacing = {0.75, 1.25, 2.5};  // anisotropic
  original.origin = {-12.5, 30.25, 7.0};
  ASSERT_NE(original.direction[1], 0.0);  // a real rotation, not the identity
  const auto path = dir_ / ("vol" + GetParam());
  write_float(original, path);
  const Volume back = read_volume(path.string());
  EXPECT_EQ(back.size, original.size);
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(back.spacing[i], original.spacing[i]) << "spacing[" << i << "]";
    EXPECT_NEAR(back.origin[i], original.origin[i], 1e-9) << "origin[" << i << "]";
  }
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back.direction[i], original.direction[i], 1e-6) << "direction[" << i << "]";
  EXPECT_EQ(back.voxels, original.voxels);
}

TEST_P(TextHeaderRoundTrip, ReadsA4DFileWithOneTimePointAndRefusesMore) {
  const Volume original = test::make_test_volume();
  const auto one = dir_ / ("t1" + GetParam());
  test::write_4d_float_with_itk(original, 1, one, format_of(GetParam()));
  const Volume back = read_volume(one.string());
  EXPECT_EQ(back.size, original.size);
  EXPECT_EQ(back.voxels, original.voxels);

  const auto two = dir_ / ("t2" + GetParam());
  test::write_4d_float_with_itk(original, 2, two, format_of(GetParam()));
  EXPECT_DATA_ERROR(read_volume(two.string()), two.string(), "is a 4D image (5x4x3x2");
}

TEST_P(TextHeaderRoundTrip, RefusesVectorPixels) {
  const auto path = dir_ / ("vector" + GetParam());
  test::write_vector2_with_itk(test::make_test_volume(), path, format_of(GetParam()));
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "has 2 components per voxel");
}

TEST_P(TextHeaderRoundTrip, RefusesFilesOverTheCapsBeforeReadingThem) {
  const auto path = dir_ / ("vol" + GetParam());
  write_float(test::make_test_volume(), path);
  VolumeReadOptions small;
  small.max_voxels = 59;
  EXPECT_DATA_ERROR(read_volume(path.string(), small), path.string(), "declares 60 voxels (5x4x3), over the cap of 59");
  VolumeReadOptions few_bytes;
  few_bytes.max_bytes = 239;
  EXPECT_DATA_ERROR(read_volume(path.string(), few_bytes), path.string(),
                    "declares 240 bytes of voxel data, over the cap of 239");
}

TEST_P(TextHeaderRoundTrip, RejectsNonFiniteVoxelsUnlessAllowed) {
  Volume original = test::make_test_volume();
  original.voxels[3] = std::numeric_limits<float>::quiet_NaN();
  original.voxels[7] = std::numeric_limits<float>::infinity();
  const auto path = dir_ / ("nan" + GetParam());
  write_float(original, path);
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "contains 2 non-finite voxels");
  EXPECT_DATA_ERROR(check_volume_file(path.string()), path.string(), "contains 2 non-finite voxels");
  VolumeReadOptions lenient;
  lenient.reject_non_finite = false;
  EXPECT_NO_THROW(check_volume_file(path.string(), lenient));
  const Volume back = read_volume(path.string(), lenient);
  EXPECT_TRUE(std::isnan(back.voxels[3]));
  EXPECT_TRUE(std::isinf(back.voxels[7]));
}

// The check a training run makes of every file before step 0 says what
// read_volume would say, without decoding the voxels.
TEST_P(TextHeaderRoundTrip, TheFileCheckRefusesWhatTheReaderRefuses) {
  const auto good = dir_ / ("vol" + GetParam());
  write_float(test::make_test_volume(), good);
  EXPECT_NO_THROW(check_volume_file(good.string()));
  VolumeReadOptions small;
  small.max_voxels = 59;
  EXPECT_DATA_ERROR(check_volume_file(good.string(), small), good.string(), "declares 60 voxels (5x4x3), over the cap of 59");

  const auto two = dir_ / ("t2" + GetParam());
  test::write_4d_float_with_itk(test::make_test_volume(), 2, two, format_of(GetParam()));
  EXPECT_DATA_ERROR(check_volume_file(two.string()), two.string(), "is a 4D image (5x4x3x2");

  const auto vector = dir_ / ("vector" + GetParam());
  test::write_vector2_with_itk(test::make_test_volume(), vector, format_of(GetParam()));
  EXPECT_DATA_ERROR(check_volume_file(vector.string()), vector.string(), "has 2 components per voxel");

  // Short data: the attached files lose their last 100 bytes, the detached ones' data file keeps 200 of 240.
  const auto cut = dir_ / ("cut" + GetParam());
  write_float(test::make_test_volume(), cut);
  const bool detached = GetParam() == ".nhdr" || GetParam() == ".mhd";
  const fs::path data = detached ? fs::path(cut).replace_extension(".raw") : cut;
  const std::string bytes = test::read_bytes(data);
  test::write_bytes(data, detached ? test::read_bytes(data).substr(0, 200) : bytes.substr(0, bytes.size() - 100));
  const std::string have = detached ? "truncated: holds 200 of 240 bytes" : "truncated: holds 140 of 240 bytes";
  EXPECT_DATA_ERROR(check_volume_file(cut.string()), cut.string(), have);
  EXPECT_DATA_ERROR(read_volume(cut.string()), cut.string(), have);
}

INSTANTIATE_TEST_SUITE_P(NrrdAndMetaImage, TextHeaderRoundTrip,
                         ::testing::Values(".nrrd", ".nhdr", ".mha", ".mhd"),
                         [](const auto& info) { return info.param.substr(1); });

// The extension is matched in any case (scanners and Windows tools write .MHA).
TEST(TextHeaderNames, AreMatchedInAnyCase) {
  test::TempDir dir{"nrrd-mha-io"};
  const Volume original = test::make_test_volume();
  for (const char* name : {"upper.NRRD", "upper.MHA", "mixed.Mhd"}) {
    const auto path = dir / name;
    write_float(original, path);
    EXPECT_EQ(read_volume(path.string()).voxels, original.voxels) << name;
  }
}

class TextHeaderRefusal : public ::testing::Test {
 protected:
  test::TempDir dir_{"nrrd-mha-io"};
};

TEST_F(TextHeaderRefusal, NamesATruncatedNrrd) {
  const auto path = dir_ / "cut.nrrd";
  test::write_float_with_itk(test::make_test_volume(), path, TextHeaderFormat::nrrd);
  const std::string bytes = test::read_bytes(path);
  test::write_bytes(path, bytes.substr(0, bytes.size() - 100));  // 60 floats = 240 bytes of data
  // Found from the header and the file size, before NrrdIO reads the voxels.
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "truncated: holds 140 of 240 bytes of voxel data");
}

TEST_F(TextHeaderRefusal, NamesATruncatedMha) {
  const auto path = dir_ / "cut.mha";
  test::write_float_with_itk(test::make_test_volume(), path, TextHeaderFormat::meta);
  const std::string bytes = test::read_bytes(path);
  test::write_bytes(path, bytes.substr(0, bytes.size() - 100));
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "truncated: holds 140 of 240 bytes of voxel data");
  const auto detached = dir_ / "cut.mhd";
  test::write_float_with_itk(test::make_test_volume(), detached, TextHeaderFormat::meta);
  const auto raw = dir_ / "cut.raw";
  test::write_bytes(raw, test::read_bytes(raw).substr(0, 200));
  EXPECT_DATA_ERROR(read_volume(detached.string()), detached.string(), "truncated: holds 200 of 240 bytes");
}

TEST_F(TextHeaderRefusal, NamesGarbageWithAnImageName) {
  std::string garbage(4096, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 2654435761u) >> 13);
  const auto mha = dir_ / "garbage.mha";
  test::write_bytes(mha, garbage);
  EXPECT_DATA_ERROR(read_volume(mha.string()), mha.string(), "ITK cannot read its MetaImage header");
  const auto nrrd = dir_ / "garbage.nrrd";
  test::write_bytes(nrrd, garbage);
  EXPECT_DATA_ERROR(read_volume(nrrd.string()), nrrd.string(), "not a NRRD file");
  const auto empty = dir_ / "empty.mhd";
  test::write_bytes(empty, "");
  EXPECT_DATA_ERROR(read_volume(empty.string()), empty.string(), "ITK cannot read its MetaImage header");
}

TEST_F(TextHeaderRefusal, NamesADetachedHeaderWhoseDataFileIsMissing) {
  const auto path = dir_ / "lost.nhdr";
  test::write_float_with_itk(test::make_test_volume(), path, TextHeaderFormat::nrrd);
  for (const auto& e : fs::directory_iterator(dir_.path()))
    if (e.path() != path) fs::remove(e.path());
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "lost.raw");
}

TEST_F(TextHeaderRefusal, UnsupportedTypeListsTheFormats) {
  const auto png = dir_ / "x.png";
  test::write_bytes(png, "not an image");
  EXPECT_DATA_ERROR(read_volume(png.string()), png.string(), ".nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd");
  EXPECT_DATA_ERROR(check_volume_file(png.string()), png.string(), ".nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd");
}

// Public data shipped by Debian's python3-nibabel (installer/packages/test.txt):
// a real NIfTI-1 file from another writer than ITK.
TEST(NibabelData, ReadsAnatomicalNii) {
  const std::string path = "/usr/lib/python3/dist-packages/nibabel/tests/data/anatomical.nii";
  if (!fs::exists(path)) {
    std::cout << "skipped: " << path << " is absent (install python3-nibabel)\n";
    GTEST_SKIP() << path << " is absent (install python3-nibabel)";
  }
  const Volume v = read_volume(path);
  EXPECT_EQ(v.size, (std::array<std::size_t, 3>{33, 41, 25}));
  for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(v.spacing[i], 2.0) << "spacing[" << i << "]";
  EXPECT_EQ(v.voxels.size(), v.voxel_count());
  for (float x : v.voxels) ASSERT_TRUE(std::isfinite(x));
}

// nibabel's two Siemens MR slices (a real scanner's files, 256 x 256 each):
// as a folder they are one series that the DICOM reader stacks, with the
// scanner's spacing and finite voxels.
TEST(NibabelData, ReadsTwoSiemensMrSlicesAsOneSeries) {
  const fs::path data = "/usr/lib/python3/dist-packages/nibabel/tests/data";
  if (!fs::exists(data / "0.dcm") || !fs::exists(data / "1.dcm")) {
    std::cout << "skipped: " << data.string() << "/{0,1}.dcm are absent (install python3-nibabel)\n";
    GTEST_SKIP() << "nibabel's Siemens DICOM files are absent (install python3-nibabel)";
  }
  const fs::path folder = fs::temp_directory_path() / ("medsynth-siemens-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  fs::copy_file(data / "0.dcm", folder / "0.dcm", fs::copy_options::overwrite_existing);
  fs::copy_file(data / "1.dcm", folder / "1.dcm", fs::copy_options::overwrite_existing);
  Volume v;
  try {
    v = read_volume(folder.string());
  } catch (...) {
    remove_tree(folder);
    throw;
  }
  remove_tree(folder);
  EXPECT_EQ(v.size[0], 256u);
  EXPECT_EQ(v.size[1], 256u);
  EXPECT_EQ(v.size[2], 2u);
  for (int i = 0; i < 3; ++i) EXPECT_GT(v.spacing[i], 0.0) << "spacing[" << i << "]";
  for (float x : v.voxels) ASSERT_TRUE(std::isfinite(x));
}

}  // namespace
}  // namespace medsynth
