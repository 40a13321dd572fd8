// read_volume on DICOM series folders: a round trip of spacing, origin and
// values through a series written by ITK/GDCM, and the folders it must refuse
// (no DICOM, broken files, over the voxel cap).
#include <gtest/gtest.h>

#include <cmath>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "expect_data_error.hpp"
#include "itk_fixtures.hpp"
#include "nifti_bytes.hpp"
#include "support/temp_dir.hpp"
#include "volume/dicom_file_guard.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

Volume make_ct_like_volume() {
  Volume v = make_volume({6, 5, 4}, {0.8, 0.9, 2.0});
  v.origin = {-10.0, 5.0, 30.0};
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = static_cast<float>(i) * 7.0f - 300.0f;
  return v;
}

class DicomSeries : public ::testing::Test {
 protected:
  void SetUp() override {
    series_ = dir_ / "series";
    fs::create_directory(series_);
    test::write_dicom_series_with_itk(volume_, series_);
  }
  test::TempDir dir_{"dicom"};
  fs::path series_;
  Volume volume_ = make_ct_like_volume();
};

TEST_F(DicomSeries, RoundTripsSpacingOriginAndValues) {
  std::vector<std::string> warnings;
  const Volume back = read_volume(series_.string(), {}, &warnings);
  EXPECT_EQ(back.size, volume_.size);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(back.spacing[i], volume_.spacing[i], 1e-5) << "axis " << i;
    EXPECT_NEAR(back.origin[i], volume_.origin[i], 1e-5) << "axis " << i;
  }
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back.direction[i], volume_.direction[i], 1e-6);
  EXPECT_EQ(back.voxels, volume_.voxels);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(DicomSeries, CapsTheVoxelCountBeforeReading) {
  VolumeReadOptions small;
  small.max_voxels = 100;
  EXPECT_DATA_ERROR(read_volume(series_.string(), small), series_.string(),
                    "DICOM series declares 120 voxels (6x5x1 per file, 4 files), over the cap of 100");
}

TEST_F(DicomSeries, RefusesAFolderWithoutDicomFiles) {
  const auto empty = dir_ / "empty";
  fs::create_directory(empty);
  EXPECT_DATA_ERROR(read_volume(empty.string()), empty.string(), "no DICOM series found");
  const auto other = dir_ / "other";
  fs::create_directory(other);
  test::write_bytes(other / "notes.txt", "not DICOM");
  test::write_bytes(other / "fake.dcm", std::string(200, 'z'));
  EXPECT_DATA_ERROR(read_volume(other.string()), other.string(), "no DICOM series found");
}

// Each slice file in name order; slice0.dcm is the first.
fs::path slice_file(const fs::path& folder, int z) { return folder / ("slice" + std::to_string(z) + ".dcm"); }

// The offset of the value of an implicit-VR-little-endian element.
std::size_t value_offset(const std::string& bytes, std::uint16_t group, std::uint16_t element) {
  std::string tag(4, '\0');
  std::memcpy(tag.data(), &group, 2);
  std::memcpy(tag.data() + 2, &element, 2);
  const auto at = bytes.rfind(tag);  // the dataset, not a same-named meta element
  EXPECT_NE(at, std::string::npos);
  return at + 8;
}

// Replaces the text value of a top-level element (not in the meta header)
// in place. Its length field (2 bytes in explicit VR, 4 in implicit) follows
// the value; nothing after it is offset-based. An odd-length value gets
// DICOM's trailing space.
void replace_text_value(const fs::path& file, std::uint16_t group, std::uint16_t element, std::string value) {
  if (value.size() % 2) value += ' ';
  ASSERT_LT(value.size(), 256u);
  std::string bytes = test::read_bytes(file);
  const std::size_t at = value_offset(bytes, group, element);
  const bool explicit_vr = std::isupper(static_cast<unsigned char>(bytes[at - 4])) &&
                           std::isupper(static_cast<unsigned char>(bytes[at - 3]));
  const std::size_t length_at = explicit_vr ? at - 2 : at - 4;
  const std::size_t old_length =
      static_cast<unsigned char>(bytes[length_at]) | static_cast<unsigned char>(bytes[length_at + 1]) << 8;
  bytes[length_at] = static_cast<char>(value.size());
  bytes[length_at + 1] = 0;
  bytes.replace(at, old_length, value);
  test::write_bytes(file, bytes);
}

TEST_F(DicomSeries, OrdersSlicesByPositionNotByName) {
  // Reverse the names: z = 0 gets the last name.
  for (int z = 0; z < 4; ++z) fs::rename(slice_file(series_, z), series_ / ("tmp" + std::to_string(3 - z) + ".dcm"));
  const Volume back = read_volume(series_.string());
  EXPECT_EQ(back.voxels, volume_.voxels);
  EXPECT_NEAR(back.origin[2], volume_.origin[2], 1e-5);
}

TEST_F(DicomSeries, RoundTripsARotatedSeries) {
  Volume rotated = volume_;
  const double c = std::cos(0.4), s = std::sin(0.4);
  rotated.direction = {c, -s, 0, s, c, 0, 0, 0, 1};
  const auto folder = dir_ / "rotated";
  fs::create_directory(folder);
  test::write_dicom_series_with_itk(rotated, folder);
  const Volume back = read_volume(folder.string());
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back.direction[i], rotated.direction[i], 1e-5) << i;
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(back.spacing[i], rotated.spacing[i], 1e-5);
  EXPECT_EQ(back.voxels, rotated.voxels);
}

TEST_F(DicomSeries, ReadsCompressedSlices) {
  const auto folder = dir_ / "jpeg";
  fs::create_directory(folder);
  test::write_dicom_series_with_itk(volume_, folder, true);
  const auto info = check_dicom_file(slice_file(folder, 0).string());
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(info->encapsulated);
  EXPECT_EQ(read_volume(folder.string()).voxels, volume_.voxels);
}

TEST_F(DicomSeries, PixelsThatLookLikeAnItemTagAreStillPixels) {
  // 0xFFFE, 0xE000 then a plausible item length (16): the bytes of an item
  // header, as implicit-VR pixel data may begin by chance.
  Volume tricky = volume_;
  tricky.voxels[0] = -2.0f;
  tricky.voxels[1] = -8192.0f;
  tricky.voxels[2] = 16.0f;
  tricky.voxels[3] = 0.0f;
  const auto folder = dir_ / "tricky";
  fs::create_directory(folder);
  test::write_dicom_series_with_itk(tricky, folder);
  EXPECT_EQ(read_volume(folder.string()).voxels, tricky.voxels);
}

TEST_F(DicomSeries, ReadsTheFirstOfSeveralSeriesWithAWarning) {
  // A second series in the same folder with a larger UID and other values.
  const auto other = dir_ / "other";
  fs::create_directory(other);
  Volume second = volume_;
  for (auto& v : second.voxels) v += 1000.0f;
  test::write_dicom_series_with_itk(second, other);
  for (int z = 0; z < 4; ++z) {
    std::string bytes = test::read_bytes(slice_file(other, z));
    // Same length UIDs, so no element length changes: ...77.1.1 -> ...77.9.1
    for (auto at = bytes.find("1125.77.1."); at != std::string::npos; at = bytes.find("1125.77.1.", at + 1))
      bytes[at + 8] = '9';
    test::write_bytes(series_ / ("z_other" + std::to_string(z) + ".dcm"), bytes);
  }
  std::vector<std::string> warnings;
  const Volume back = read_volume(series_.string(), {}, &warnings);
  EXPECT_EQ(back.voxels, volume_.voxels);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("holds 2 DICOM series"), std::string::npos) << warnings[0];
}

TEST_F(DicomSeries, RefusesSlicesSharingAPosition) {
  fs::copy_file(slice_file(series_, 1), series_ / "copy.dcm");
  EXPECT_DATA_ERROR(read_volume(series_.string()), series_.string(), "slices at one position");
}

TEST_F(DicomSeries, CutPixelDataIsAnErrorNotSilentPadding) {
  const auto file = slice_file(series_, 2);
  const std::string bytes = test::read_bytes(file);
  test::write_bytes(file, bytes.substr(0, bytes.size() - 20));
  EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "(7FE0,0010) declares 60 bytes, past the end of the file");
}

TEST_F(DicomSeries, FilesCutAnywhereGiveADataErrorNotACrash) {
  // GDCM alone aborts the process on a file cut inside its meta header.
  const auto file = slice_file(series_, 0);
  const std::string bytes = test::read_bytes(file);
  for (std::size_t cut : {std::size_t{140}, std::size_t{200}, std::size_t{300}, bytes.size() / 2, bytes.size() - 1}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    test::write_bytes(file, bytes.substr(0, cut));
    EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "broken DICOM file");
  }
}

// Issue 50 item 2: a slice saying PhotometricInterpretation PALETTE COLOR
// without its lookup table hit an assertion in Debian's GDCM (SIGABRT, exit
// 134) in export-dicom and in training; colour is no CT or MR either. The
// guard refuses it before GDCM sees the file, naming the file and the value.
TEST_F(DicomSeries, RefusesPaletteColourBeforeGdcmSeesIt) {
  const auto file = slice_file(series_, 1);
  replace_text_value(file, 0x0028, 0x0004, "PALETTE COLOR");
  EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(),
                    "PhotometricInterpretation \"PALETTE COLOR\" is not supported");
}

// Issue 50 item 3: ITK reads PixelSpacing 0 or -1 as 1 mm, and a value
// that overflows to infinity as it comes; each is refused naming the slice.
TEST_F(DicomSeries, RefusesPixelSpacingThatIsNotAPositiveNumber) {
  const auto file = slice_file(series_, 2);
  const std::string original = test::read_bytes(file);
  for (const std::string spacing : {"0\\0", "-1\\0.9", "1e400\\0.9", "0.8\\-0.9", "0.8"}) {
    SCOPED_TRACE(spacing);
    test::write_bytes(file, original);
    replace_text_value(file, 0x0028, 0x0030, spacing);
    EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "PixelSpacing \"" + spacing + "\" is not");
  }
}

// Issue 50 item 3: a slice whose PixelData is gone was skipped as "not an
// image", and the volume came out one slice short with nothing said.
TEST_F(DicomSeries, RefusesASliceWithoutPixelData) {
  const auto file = slice_file(series_, 3);  // the last: no gap hides the missing pixels
  const std::string bytes = test::read_bytes(file);
  const std::string pixel_tag("\xE0\x7F\x10\x00", 4);
  const auto at = bytes.rfind(pixel_tag);
  ASSERT_NE(at, std::string::npos);
  test::write_bytes(file, bytes.substr(0, at));
  EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "holds no pixel data (7FE0,0010)");
}

// Issue 50 item 3: slices at z = 30, 32, 34, 38, 40, 42 (one missing) were
// spread evenly by ITK, misplacing every slice after the gap; the only sign
// was ITK's warning on stderr. The gap is refused, naming the files around it.
TEST_F(DicomSeries, RefusesAGapBetweenSlices) {
  Volume six = make_volume({3, 2, 6}, {0.8, 0.9, 2.0});
  six.origin = {0.0, 0.0, 30.0};
  const auto folder = dir_ / "gap";
  fs::create_directory(folder);
  test::write_dicom_series_with_itk(six, folder);
  fs::remove(slice_file(folder, 3));
  EXPECT_DATA_ERROR(read_volume(folder.string()), folder.string(),
                    "DICOM slices are not evenly spaced: " + slice_file(folder, 2).string() + " and " +
                        slice_file(folder, 4).string() + " are 4 mm apart, the others 2 mm");
}

// Issue 50 item 3: 10 000 one-pixel slices came back as 10000x1x1. ITK's
// series reader stacks slices along the first of their trailing axes of
// length 1, so slices one row high are stacked along y, 1x1 ones along x.
TEST_F(DicomSeries, RefusesSlicesOneRowHigh) {
  for (const std::array<std::size_t, 3> size : {std::array<std::size_t, 3>{1, 1, 3}, {4, 1, 3}}) {
    const auto folder = dir_ / ("thin" + std::to_string(size[0]));
    fs::create_directory(folder);
    test::write_dicom_series_with_itk(make_volume(size, {0.8, 0.9, 2.0}), folder);
    EXPECT_DATA_ERROR(read_volume(folder.string()), folder.string(),
                      "DICOM slices are " + std::to_string(size[0]) + "x1 pixels");
  }
  // One column is stacked right: ITK drops only trailing axes of length 1.
  const auto folder = dir_ / "one-column";
  fs::create_directory(folder);
  Volume column = make_volume({1, 4, 3}, {0.8, 0.9, 2.0});
  for (std::size_t i = 0; i < column.voxels.size(); ++i) column.voxels[i] = static_cast<float>(i);
  test::write_dicom_series_with_itk(column, folder);
  const Volume back = read_volume(folder.string());
  EXPECT_EQ(back.size, column.size);
  EXPECT_EQ(back.voxels, column.voxels);
}

TEST_F(DicomSeries, ReadsSlicesWhosePositionsAreRoundedInTheirLastDigit) {
  // Positions written with DS's few digits wobble by far less than 1 %.
  for (int z = 0; z < 4; ++z) {
    const auto file = slice_file(series_, z);
    std::ostringstream position;
    position << "-10\\5\\" << (30.0 + 2.0 * z + (z == 2 ? 0.004 : 0.0));
    replace_text_value(file, 0x0020, 0x0032, position.str());
  }
  EXPECT_EQ(read_volume(series_.string()).voxels, volume_.voxels);
}

TEST_F(DicomSeries, RefusesElementLengthsPastTheEnd) {
  const auto file = slice_file(series_, 1);
  std::string bytes = test::read_bytes(file);
  const std::size_t at = value_offset(bytes, 0x0010, 0x0010);  // PatientName
  const std::uint32_t huge = 0x7FFFFFF0u;
  std::memcpy(bytes.data() + at - 4, &huge, 4);
  test::write_bytes(file, bytes);
  EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "(0010,0010) declares 2147483632 bytes, past the end");
}

TEST_F(DicomSeries, RefusesUnsupportedBitsAllocated) {
  const auto file = slice_file(series_, 3);
  std::string bytes = test::read_bytes(file);
  const std::size_t at = value_offset(bytes, 0x0028, 0x0100);
  for (std::uint16_t bits : {12, 64}) {
    std::memcpy(bytes.data() + at, &bits, 2);
    test::write_bytes(file, bytes);
    EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(),
                      "BitsAllocated " + std::to_string(bits) + " is not supported");
  }
  // 32 bits with 16-bit data: the pixel data is then too short.
  const std::uint16_t bits = 32;
  std::memcpy(bytes.data() + at, &bits, 2);
  test::write_bytes(file, bytes);
  EXPECT_DATA_ERROR(read_volume(series_.string()), file.string(), "truncated pixel data: holds 60 of 120 bytes");
}

TEST_F(DicomSeries, GuardIgnoresFilesThatAreNotDicom) {
  const auto text = dir_ / "notes.txt";
  test::write_bytes(text, std::string(300, 'a'));
  EXPECT_FALSE(check_dicom_file(text.string()).has_value());
  const auto info = check_dicom_file(slice_file(series_, 0).string());
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->rows, 5u);
  EXPECT_EQ(info->columns, 6u);
  EXPECT_EQ(info->bits_allocated, 16u);
  ASSERT_TRUE(info->position.has_value());
  EXPECT_NEAR((*info->position)[2], 30.0, 1e-6);
}

}  // namespace
}  // namespace medsynth
