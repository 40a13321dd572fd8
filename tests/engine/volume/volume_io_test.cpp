// read_volume / write_volume on NIfTI: round trips of voxels and geometry,
// inputs written by ITK itself (int16, 4D, other byte order), non-finite
// voxels, NIfTI-2, and the atomic write.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "expect_data_error.hpp"
#include "itk_fixtures.hpp"
#include "nifti_bytes.hpp"
#include "support/temp_dir.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

void expect_same_geometry(const Volume& got, const Volume& want) {
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.spacing, want.spacing);  // float-representable values come back exactly
  EXPECT_EQ(got.origin, want.origin);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(got.direction[i], want.direction[i], 1e-6) << "direction[" << i << "]";
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class VolumeRoundTrip : public ::testing::TestWithParam<std::string> {
 protected:
  test::TempDir dir_{"volume-io"};
};

TEST_P(VolumeRoundTrip, KeepsVoxelsAndGeometry) {
  const Volume original = test::make_test_volume();
  ASSERT_NE(original.direction[1], 0.0);  // a real rotation, not the identity
  const auto path = (dir_ / ("vol" + GetParam())).string();
  write_volume(original, path);
  const Volume back = read_volume(path);
  expect_same_geometry(back, original);
  EXPECT_EQ(back.voxels, original.voxels);
  const auto info = check_nifti_file(path);
  EXPECT_EQ(info.datatype, 16) << "written as float32";
  EXPECT_EQ(info.compressed, GetParam() == ".nii.gz");
}

// Issue 53 item 10: label maps (prepare-label's, generate's paired labels)
// were written as float32. A label map takes its smallest exact type, and
// one that is not a label map stays float32 with every value kept.
TEST_P(VolumeRoundTrip, WritesALabelMapInItsSmallestExactType) {
  Volume label = test::make_test_volume();
  for (std::size_t i = 0; i < label.voxels.size(); ++i) label.voxels[i] = static_cast<float>(i % 7 == 0 ? 200 : i % 4);
  const auto small = (dir_ / ("classes" + GetParam())).string();
  write_volume(label, small, StoredPixel::label);
  EXPECT_EQ(check_nifti_file(small).datatype, 2) << "uint8";
  EXPECT_EQ(read_volume(small).voxels, label.voxels);
  expect_same_geometry(read_volume(small), label);

  label.voxels[3] = 300.0f;
  const auto wide = (dir_ / ("wide" + GetParam())).string();
  write_volume(label, wide, StoredPixel::label);
  EXPECT_EQ(check_nifti_file(wide).datatype, 512) << "uint16";
  EXPECT_EQ(read_volume(wide).voxels, label.voxels);

  label.voxels[4] = 0.5f;
  const auto fractional = (dir_ / ("fractional" + GetParam())).string();
  write_volume(label, fractional, StoredPixel::label);
  EXPECT_EQ(check_nifti_file(fractional).datatype, 16) << "no whole numbers: float32, nothing rounded";
  EXPECT_EQ(read_volume(fractional).voxels, label.voxels);
}

TEST_P(VolumeRoundTrip, ConvertsItkWrittenInt16ToFloat) {
  Volume original = test::make_test_volume();
  for (auto& v : original.voxels) v = std::round(v * 10.0f);
  const auto path = dir_ / ("int16" + GetParam());
  test::write_int16_nifti_with_itk(original, path);
  EXPECT_EQ(check_nifti_file(path.string()).datatype, 4);
  const Volume back = read_volume(path.string());
  expect_same_geometry(back, original);
  EXPECT_EQ(back.voxels, original.voxels);
}

TEST_P(VolumeRoundTrip, ReadsA4DFileWithOneTimePointAndRefusesMore) {
  const Volume original = test::make_test_volume();
  const auto one = dir_ / ("t1" + GetParam());
  test::write_4d_nifti_with_itk(original, 1, one);
  const Volume back = read_volume(one.string());
  expect_same_geometry(back, original);
  EXPECT_EQ(back.voxels, original.voxels);

  const auto two = dir_ / ("t2" + GetParam());
  test::write_4d_nifti_with_itk(original, 2, two);
  EXPECT_DATA_ERROR(read_volume(two.string()), two.string(), "is a 4D image (5x4x3x2");
}

TEST_P(VolumeRoundTrip, ReadsTheOtherByteOrder) {
  const Volume original = test::make_test_volume();
  const auto native = dir_ / ("native" + GetParam());
  write_volume(original, native.string());
  const auto swapped = dir_ / ("swapped" + GetParam());
  test::write_nifti_bytes(swapped, test::byte_swap_nifti1_float(test::read_nifti_bytes(native)));
  EXPECT_TRUE(check_nifti_file(swapped.string()).byte_swapped);
  const Volume back = read_volume(swapped.string());
  expect_same_geometry(back, original);
  EXPECT_EQ(back.voxels, original.voxels);
}

TEST_P(VolumeRoundTrip, RejectsNonFiniteVoxelsUnlessAllowed) {
  Volume v = test::make_test_volume();
  v.at(1, 2, 0) = std::numeric_limits<float>::quiet_NaN();
  v.at(4, 3, 2) = std::numeric_limits<float>::infinity();
  const auto path = (dir_ / ("nan" + GetParam())).string();
  write_volume(v, path);
  EXPECT_DATA_ERROR(read_volume(path), path, "contains 2 non-finite voxels");
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "contains 2 non-finite voxels");
  VolumeReadOptions lenient;
  lenient.reject_non_finite = false;
  std::vector<std::string> warnings;
  const Volume back = read_volume(path, lenient, &warnings);
  // niftilib inside ITK zeroes them; the warning is what tells the caller.
  EXPECT_EQ(back.at(1, 2, 0), 0.0f);
  EXPECT_EQ(back.at(4, 3, 2), 0.0f);
  EXPECT_EQ(back.at(0, 0, 0), v.at(0, 0, 0));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("contains 2 non-finite voxels"), std::string::npos) << warnings[0];

  // The other byte order and float64 are counted too.
  const auto swapped = dir_ / ("nan_swapped" + GetParam());
  test::write_nifti_bytes(swapped, test::byte_swap_nifti1_float(test::read_nifti_bytes(path)));
  EXPECT_DATA_ERROR(read_volume(swapped.string()), swapped.string(), "contains 2 non-finite voxels");
  const auto doubles = dir_ / ("nan64" + GetParam());
  test::write_float64_nifti_with_itk(v, doubles);
  EXPECT_EQ(check_nifti_file(doubles.string(), lenient).datatype, 64);
  EXPECT_DATA_ERROR(read_volume(doubles.string()), doubles.string(), "contains 2 non-finite voxels");
}

TEST_P(VolumeRoundTrip, ChecksNifti2ButRefusesToReadIt) {
  const auto nifti1 = dir_ / ("v1" + GetParam());
  write_volume(test::make_test_volume(), nifti1.string());
  const std::string n2 = test::nifti1_to_nifti2(test::read_nifti_bytes(nifti1));
  const auto path = dir_ / ("v2" + GetParam());
  test::write_nifti_bytes(path, n2);
  const auto info = check_nifti_file(path.string());
  EXPECT_EQ(info.version, 2);
  EXPECT_EQ(info.size, (std::array<std::int64_t, 3>{5, 4, 3}));
  EXPECT_EQ(info.vox_offset, 544u);
  EXPECT_EQ(info.spacing, (std::array<double, 3>{0.75, 1.25, 2.5}));
  EXPECT_TRUE(info.warnings.empty());
  EXPECT_DATA_ERROR(read_volume(path.string()), path.string(), "is NIfTI-2, which the ITK");

  // NIfTI-2 dims are int64: a product past 2^64 must be caught, not wrapped.
  std::string huge = n2;
  for (int i = 1; i <= 3; ++i) test::patch<std::int64_t>(huge, 16 + 8 * i, std::int64_t{1} << 30);
  const auto huge_path = dir_ / ("huge2" + GetParam());
  test::write_nifti_bytes(huge_path, huge);
  VolumeReadOptions no_cap{std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max()};
  EXPECT_DATA_ERROR(check_nifti_file(huge_path.string(), no_cap), huge_path.string(), "overflows 64 bits");

  std::string text_mode = n2;
  text_mode[8] = '\n';  // "\r\n" turned into "\n\n"
  const auto text_path = dir_ / ("text2" + GetParam());
  test::write_nifti_bytes(text_path, text_mode);
  EXPECT_DATA_ERROR(check_nifti_file(text_path.string()), text_path.string(), "transferred in text mode");
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, VolumeRoundTrip, ::testing::Values(".nii", ".nii.gz"),
                         [](const auto& info) { return info.param == ".nii" ? std::string("nii") : std::string("nii_gz"); });

class VolumeIo : public ::testing::Test {
 protected:
  test::TempDir dir_{"volume-io"};
};

TEST_F(VolumeIo, NamesMissingAndUnsupportedInputs) {
  const auto missing = (dir_ / "missing.nii.gz").string();
  EXPECT_DATA_ERROR(read_volume(missing), missing, "no such file");
  const auto png = (dir_ / "x.png").string();
  test::write_bytes(png, "not an image");
  EXPECT_DATA_ERROR(read_volume(png), png, "unsupported file type");
  const auto dcm = (dir_ / "x.dcm").string();
  test::write_bytes(dcm, "DICM");
  EXPECT_DATA_ERROR(read_volume(dcm), dcm, "pass the folder");
}

TEST_F(VolumeIo, WriteReplacesAnExistingFileWholeAndLeavesNoTempFiles) {
  const auto path = dir_ / "out.nii.gz";
  test::write_bytes(path, std::string(100000, 'x'));  // larger than the new file
  const Volume v = test::make_test_volume();
  write_volume(v, path.string());
  EXPECT_EQ(read_volume(path.string()).voxels, v.voxels);
  EXPECT_EQ(files_in(dir_.path()), std::vector<std::string>{"out.nii.gz"});

  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask) << "mode of a plainly created file, not mkstemp's 0600";
}

TEST_F(VolumeIo, FailedWriteLeavesTheOldFileAndNoTempFiles) {
  const auto path = dir_ / "keep.nii";
  test::write_bytes(path, "old content");
  Volume bad = test::make_test_volume();
  bad.voxels.pop_back();
  try {
    write_volume(bad, path.string());
    ADD_FAILURE() << "no RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::read_bytes(path), "old content");
  EXPECT_EQ(files_in(dir_.path()), std::vector<std::string>{"keep.nii"});
}

TEST_F(VolumeIo, WriteFailuresNameThePath) {
  const Volume v = test::make_test_volume();
  const auto no_dir = (dir_ / "missing" / "x.nii").string();
  EXPECT_THROW(write_volume(v, no_dir), RuntimeError);
  try {
    write_volume(v, no_dir);
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(no_dir), std::string::npos) << e.what();
  }
  const auto wrong_name = (dir_ / "x.mha").string();
  EXPECT_THROW(write_volume(v, wrong_name), RuntimeError);
  Volume nan_spacing = v;
  nan_spacing.spacing[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(write_volume(nan_spacing, (dir_ / "y.nii").string()), RuntimeError);
  EXPECT_TRUE(files_in(dir_.path()).empty());
}

TEST_F(VolumeIo, DescribesSizeSpacingAndRange) {
  Volume v = make_volume({3, 2, 1}, {1.0, 1.0, 2.5});
  v.voxels = {-1.0f, 0.0f, 2.0f, 3.5f, 1.0f, 0.5f};
  const std::string text = describe_volume(v);
  EXPECT_NE(text.find("3x2x1 voxels"), std::string::npos) << text;
  EXPECT_NE(text.find("spacing 1x1x2.5 mm"), std::string::npos) << text;
  EXPECT_NE(text.find("range [-1, 3.5]"), std::string::npos) << text;
  v.voxels[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(describe_volume(v).find("1 non-finite"), std::string::npos);
}

}  // namespace
}  // namespace medsynth
