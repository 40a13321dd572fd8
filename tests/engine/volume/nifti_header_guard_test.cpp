// The NIfTI header guard against every bad-file case of RELIABILITY.md items
// 14-19: each starts from a good file written by write_volume, patches or cuts
// it, and expects a DataError naming the file and the reason, from both
// check_nifti_file and read_volume (so ITK never sees the file).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "expect_data_error.hpp"
#include "nifti_bytes.hpp"
#include "support/temp_dir.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

using test::nifti1::bitpix;
using test::nifti1::datatype;
using test::nifti1::dim;
using test::nifti1::magic;
using test::nifti1::pixdim;
using test::nifti1::vox_offset;
using test::patch;

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
constexpr float k_inf = std::numeric_limits<float>::infinity();

// Runs every case on an uncompressed and on a gzip-compressed file.
class NiftiGuard : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const auto good = dir_ / ("good" + GetParam());
    write_volume(test::make_test_volume(), good.string());
    good_ = test::read_nifti_bytes(good);
    ASSERT_EQ(good_.size(), 352u + 60u * 4u);  // the offsets below assume ITK's plain layout
  }

  std::string good() const { return good_; }
  std::string put(const std::string& stem, const std::string& bytes) const {
    const auto path = dir_ / (stem + GetParam());
    test::write_nifti_bytes(path, bytes);
    return path.string();
  }
  void set_dims(std::string& b, std::initializer_list<std::int16_t> dims) const {
    std::int16_t i = 0;
    for (auto d : dims) patch<std::int16_t>(b, dim + 2 * static_cast<std::size_t>(i++), d);
  }

  test::TempDir dir_{"nifti-guard"};
  std::string good_;
};

#define EXPECT_REJECTED(path, text, ...)                                     \
  do {                                                                       \
    const std::string p_ = (path);                                           \
    const VolumeReadOptions opts_{__VA_ARGS__};                              \
    EXPECT_DATA_ERROR(check_nifti_file(p_, opts_), p_, text);                \
    EXPECT_DATA_ERROR(read_volume(p_, opts_), p_, text);                     \
  } while (0)

TEST_P(NiftiGuard, AcceptsTheGoodFile) {
  const auto path = put("ok", good());
  const NiftiHeaderInfo info = check_nifti_file(path);
  EXPECT_EQ(info.version, 1);
  EXPECT_FALSE(info.byte_swapped);
  EXPECT_EQ(info.compressed, GetParam() == ".nii.gz");
  EXPECT_EQ(info.size, (std::array<std::int64_t, 3>{5, 4, 3}));
  EXPECT_EQ(info.datatype, 16);
  EXPECT_EQ(info.voxel_count, 60u);
  EXPECT_EQ(info.data_bytes, 240u);
  EXPECT_EQ(info.vox_offset, 352u);
  EXPECT_TRUE(info.warnings.empty());
}

TEST_P(NiftiGuard, RejectsWrongSizeofHdr) {
  auto b = good();
  patch<std::int32_t>(b, 0, 100);
  EXPECT_REJECTED(put("size", b), "not a NIfTI file (sizeof_hdr is 100");
}

TEST_P(NiftiGuard, RejectsBadMagic) {
  auto b = good();
  b.replace(magic, 4, std::string("abc\0", 4));
  EXPECT_REJECTED(put("magic", b), "not a NIfTI file (bad magic \"abc\\0\"");
}

TEST_P(NiftiGuard, RefusesHdrImgPairMagic) {
  auto b = good();
  b.replace(magic, 4, std::string("ni1\0", 4));
  EXPECT_REJECTED(put("pair", b), ".hdr/.img pair");
}

TEST_P(NiftiGuard, RejectsDim0OutsideOneToSeven) {
  for (std::int16_t d0 : {0, 8, -1, 200}) {
    auto b = good();
    patch<std::int16_t>(b, dim, d0);
    EXPECT_REJECTED(put("dim0_" + std::to_string(d0), b), "dim[0] is " + std::to_string(d0) + ", must be 1..7");
  }
}

TEST_P(NiftiGuard, RejectsNonPositiveUsedDims) {
  auto b = good();
  patch<std::int16_t>(b, dim + 4, 0);
  EXPECT_REJECTED(put("dim2", b), "dim[2] is 0, must be >= 1");
  b = good();
  patch<std::int16_t>(b, dim + 6, -4);
  EXPECT_REJECTED(put("dim3", b), "dim[3] is -4, must be >= 1");
}

TEST_P(NiftiGuard, RejectsFewerThanThreeDims) {
  auto b = good();
  patch<std::int16_t>(b, dim, 2);
  EXPECT_REJECTED(put("2d", b), "only 3D volumes are read");
}

TEST_P(NiftiGuard, Rejects4DWithMoreThanOneTimePoint) {
  auto b = good();
  set_dims(b, {4, 5, 4, 3, 2});
  EXPECT_REJECTED(put("4d", b), "is a 4D image (5x4x3x2, dim[4] = 2)");
}

TEST_P(NiftiGuard, Accepts4DWithOneTimePointAsThreeD) {
  auto b = good();
  set_dims(b, {4, 5, 4, 3, 1});
  const auto path = put("t1", b);
  EXPECT_EQ(check_nifti_file(path).ndim, 4);
  const Volume v = read_volume(path);
  EXPECT_EQ(v.size, (std::array<std::size_t, 3>{5, 4, 3}));
  EXPECT_EQ(v.voxels, test::make_test_volume().voxels);
}

TEST_P(NiftiGuard, RejectsHugeDimsFromATinyFileByTheVoxelCap) {
  auto b = good();
  set_dims(b, {3, 32767, 32767, 32767});
  const std::uint64_t n = 32767ull * 32767ull * 32767ull;
  EXPECT_REJECTED(put("huge", b), "declares " + std::to_string(n) + " voxels (32767x32767x32767), over the cap of " +
                                      std::to_string(VolumeReadOptions{}.max_voxels));
}

TEST_P(NiftiGuard, RejectsDimsWhoseProductOverflows) {
  auto b = good();
  set_dims(b, {7, 32767, 32767, 32767, 32767, 32767, 32767, 32767});
  EXPECT_REJECTED(put("overflow", b), "declares 32767x32767x32767x32767x32767x32767x32767 voxels, a count that overflows 64 bits");
}

TEST_P(NiftiGuard, AppliesTheCallersCaps) {
  const auto path = put("caps", good());
  EXPECT_REJECTED(path, "declares 60 voxels (5x4x3), over the cap of 59", 59);
  EXPECT_REJECTED(path, "declares 240 bytes of voxel data, over the cap of 239", 1000, 239);
  EXPECT_NO_THROW(check_nifti_file(path, VolumeReadOptions{60, 240}));
}

TEST_P(NiftiGuard, RejectsUnknownDatatype) {
  auto b = good();
  patch<std::int16_t>(b, datatype, 999);
  EXPECT_REJECTED(put("dtype", b), "unknown datatype 999");
}

TEST_P(NiftiGuard, RejectsBitpixNotMatchingDatatype) {
  auto b = good();
  patch<std::int16_t>(b, bitpix, 16);
  EXPECT_REJECTED(put("bitpix", b), "bitpix 16 does not match datatype 16 (float32, 32 bits)");
}

TEST_P(NiftiGuard, RejectsNonScalarDatatypes) {
  auto b = good();
  patch<std::int16_t>(b, datatype, 128);
  patch<std::int16_t>(b, bitpix, 24);
  EXPECT_REJECTED(put("rgb", b), "datatype 128 (rgb24) is not a scalar type");
}

TEST_P(NiftiGuard, RejectsZeroNegativeOrNonFiniteSpacing) {
  int n = 0;
  for (float bad : {0.0f, -1.0f, k_nan, k_inf}) {
    auto b = good();
    patch<float>(b, pixdim + 4 * 2, bad);
    EXPECT_REJECTED(put("pixdim" + std::to_string(n++), b), "pixdim[2] (y spacing) is");
  }
}

TEST_P(NiftiGuard, RejectsNonFiniteScaling) {
  auto b = good();
  patch<float>(b, test::nifti1::scl_slope, k_nan);
  EXPECT_REJECTED(put("slope", b), "scl_slope is nan");
}

TEST_P(NiftiGuard, RejectsBadVoxOffsets) {
  const std::pair<float, std::string> cases[] = {{k_nan, "vox_offset is NaN"},
                                                 {-16.0f, "vox_offset is -16, negative"},
                                                 {0.0f, "vox_offset 0 points inside the header (must be >= 352)"},
                                                 {348.0f, "vox_offset 348 points inside the header"},
                                                 {352.5f, "vox_offset 352.5 is not a whole number of bytes"},
                                                 {1.0e6f, "vox_offset 1000000 is past the end of the data"}};
  int n = 0;
  for (const auto& [value, text] : cases) {
    auto b = good();
    patch<float>(b, vox_offset, value);
    EXPECT_REJECTED(put("offset" + std::to_string(n++), b), text);
  }
}

TEST_P(NiftiGuard, RejectsTruncatedData) {
  auto b = good();
  b.resize(b.size() - 10);
  EXPECT_REJECTED(put("short", b), "truncated: holds 230 of 240 bytes");
}

// A good file with one 32-byte extension (ecode 6, a comment) before the data.
std::string with_extension(const std::string& good, std::int32_t esize, float offset = 384.0f) {
  std::string ext(32, '\0');
  patch<std::int32_t>(ext, 0, esize);
  patch<std::int32_t>(ext, 4, 6);
  ext.replace(8, 7, "comment");
  std::string b = good.substr(0, 348) + std::string("\1\0\0\0", 4) + ext + good.substr(352);
  patch<float>(b, vox_offset, offset);
  return b;
}

TEST_P(NiftiGuard, AcceptsAWellFormedExtension) {
  const auto path = put("ext", with_extension(good(), 32));
  EXPECT_EQ(check_nifti_file(path).extension_count, 1);
  EXPECT_EQ(read_volume(path).voxels, test::make_test_volume().voxels);
}

TEST_P(NiftiGuard, RejectsMalformedExtensions) {
  EXPECT_REJECTED(put("ext20", with_extension(good(), 20)), "extension 1 has esize 20, not a positive multiple of 16");
  EXPECT_REJECTED(put("ext64", with_extension(good(), 64)),
                  "extension 1 has esize 64, larger than the 32 bytes left before vox_offset 384");
}

TEST_P(NiftiGuard, WarnsWhenQformAndSformDisagree) {
  auto b = good();
  ASSERT_GT(test::peek<std::int16_t>(b, test::nifti1::qform_code), 0);
  ASSERT_GT(test::peek<std::int16_t>(b, test::nifti1::sform_code), 0);
  const auto path_ok = put("agree", b);
  patch<float>(b, test::nifti1::srow_x + 12, test::peek<float>(b, test::nifti1::srow_x + 12) + 5.0f);
  const auto path = put("disagree", b);
  const auto info = check_nifti_file(path);
  ASSERT_EQ(info.warnings.size(), 1u);
  EXPECT_NE(info.warnings[0].find(path), std::string::npos);
  EXPECT_NE(info.warnings[0].find("qform and sform disagree"), std::string::npos) << info.warnings[0];
  EXPECT_NE(info.warnings[0].find("origin by 5 mm"), std::string::npos) << info.warnings[0];
  std::vector<std::string> warnings;
  read_volume(path, {}, &warnings);
  EXPECT_EQ(warnings, info.warnings);
  warnings.clear();
  read_volume(path_ok, {}, &warnings);
  EXPECT_TRUE(warnings.empty());
}

TEST_P(NiftiGuard, RejectsNonFiniteOrAbsurdTransforms) {
  auto b = good();
  patch<float>(b, test::nifti1::srow_x, k_nan);
  EXPECT_REJECTED(put("srow", b), "sform (sform_code 1) holds a non-finite value");
  // Near FLT_MAX, ITK 5.2's reader never returns: the guard must stop it.
  b = good();
  patch<float>(b, test::nifti1::srow_x + 16 + 12, -3.0e38f);
  EXPECT_REJECTED(put("srow_huge", b), "e+38, beyond the plausible limit of 1000000000 mm");
}

TEST_P(NiftiGuard, RejectsEmptyAndGarbageFiles) {
  const auto empty = dir_ / ("empty" + GetParam());
  test::write_bytes(empty, "");
  EXPECT_REJECTED(empty.string(), "not a NIfTI file (empty file)");

  std::mt19937 rng(7);
  std::string garbage(1000, '\0');
  for (auto& c : garbage) c = static_cast<char>(rng() & 0xff);
  EXPECT_REJECTED(put("garbage", garbage), "not a NIfTI file");
  EXPECT_REJECTED(put("tiny", "abc"), "not a NIfTI file (only 3 bytes)");
  EXPECT_REJECTED(put("headerless", good().substr(0, 200)), "shorter than its 348-byte header");
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, NiftiGuard, ::testing::Values(".nii", ".nii.gz"),
                         [](const auto& info) { return info.param == ".nii" ? std::string("nii") : std::string("nii_gz"); });

// Cases that only a gzip stream can have.
class NiftiGzipGuard : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto good = dir_ / "good.nii";
    write_volume(test::make_test_volume(), good.string());
    good_ = test::read_bytes(good);
  }
  test::TempDir dir_{"nifti-gz-guard"};
  std::string good_;
};

TEST_F(NiftiGzipGuard, StopsAStreamThatInflatesBeyondItsHeader) {
  const auto path = (dir_ / "bomb.nii.gz").string();
  // 8 MiB of zeros compress to a few KiB: the guard must stop counting at
  // declared + slack without storing them.
  test::write_bytes(path, test::gzip(good_ + std::string(8u << 20, '\0')));
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "inflates beyond its header");
  EXPECT_DATA_ERROR(read_volume(path), path, "inflates beyond its header");
}

TEST_F(NiftiGzipGuard, AcceptsASmallTrailingSlack) {
  const auto path = (dir_ / "slack.nii.gz").string();
  test::write_bytes(path, test::gzip(good_ + std::string(64, '\0')));
  EXPECT_EQ(check_nifti_file(path).data_bytes_found, 240u + 64u);
  EXPECT_EQ(read_volume(path).voxels, test::make_test_volume().voxels);
}

TEST_F(NiftiGzipGuard, RejectsACutStream) {
  const auto path = (dir_ / "cut.nii.gz").string();
  const std::string gz = test::gzip(good_);
  test::write_bytes(path, gz.substr(0, gz.size() / 2));
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "corrupt gzip stream");
  EXPECT_DATA_ERROR(read_volume(path), path, "corrupt gzip stream");
}

TEST_F(NiftiGzipGuard, RejectsCorruptDeflateDataOrChecksum) {
  const auto path = (dir_ / "corrupt.nii.gz").string();
  std::string gz = test::gzip(good_);
  for (std::size_t i = gz.size() / 3; i < gz.size() / 3 + 8; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  test::write_bytes(path, gz);
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "corrupt gzip stream");
  // The CRC trailer alone: the data inflates fine but does not match it.
  std::string crc = test::gzip(good_);
  crc[crc.size() - 6] = static_cast<char>(crc[crc.size() - 6] ^ 0xff);
  test::write_bytes(path, crc);
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "corrupt gzip stream");
}

TEST_F(NiftiGzipGuard, RejectsAGzipFileNamedNii) {
  const auto path = (dir_ / "lying.nii").string();
  test::write_bytes(path, test::gzip(good_));
  EXPECT_DATA_ERROR(check_nifti_file(path), path, "gzip-compressed but not named .gz");
}

TEST_F(NiftiGzipGuard, RefusesAnalyzePairsByName) {
  const auto path = (dir_ / "pair.hdr").string();
  test::write_bytes(path, good_.substr(0, 348));
  EXPECT_DATA_ERROR(check_nifti_file(path), path, ".hdr/.img pairs are not supported");
}

}  // namespace
}  // namespace medsynth
