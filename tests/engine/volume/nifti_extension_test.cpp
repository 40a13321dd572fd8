// Comment extensions (provenance) added to NIfTI files that ITK wrote: the
// text comes back, the voxels and geometry are unchanged for our reader (and
// so for ITK, which reads them), a second extension keeps the first, and a
// file that is not single-file NIfTI-1 is refused naming it.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "core/error.hpp"
#include "support/temp_dir.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {
Volume ramp() {
  Volume v = make_volume({7, 5, 3}, {0.8, 0.9, 2.5});
  v.origin = {-10.0, 4.0, 30.0};
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = static_cast<float>(i) * 1.5f - 40.0f;
  return v;
}
}  // namespace

class NiftiExtension : public ::testing::TestWithParam<const char*> {};

TEST_P(NiftiExtension, TextComesBackAndTheVolumeIsUnchanged) {
  test::TempDir dir("nifti-ext");
  const std::string path = (dir / (std::string("v") + GetParam())).string();
  const Volume original = ramp();
  write_volume(original, path);
  EXPECT_TRUE(read_nifti_comment_extensions(path).empty());
  const std::string first = R"({"medsynth_provenance":{"seed":43,"rank":0}})";
  add_nifti_comment_extension(path, first);
  add_nifti_comment_extension(path, "second note, 17 characters longer");
  const auto texts = read_nifti_comment_extensions(path);
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[0], first);
  EXPECT_EQ(texts[1], "second note, 17 characters longer");
  const Volume back = read_volume(path);
  EXPECT_EQ(back.size, original.size);
  EXPECT_EQ(back.voxels, original.voxels);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(back.spacing[i], original.spacing[i], 1e-6);
    EXPECT_NEAR(back.origin[i], original.origin[i], 1e-5);
  }
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(PlainAndGzip, NiftiExtension, ::testing::Values(".nii", ".nii.gz"),
                         [](const auto& info) { return std::string(info.param) == ".nii" ? "nii" : "nii_gz"; });

namespace {

// `little` (a little-endian float32 NIfTI-1 without extensions) as another
// tool on a big-endian machine writes it: every header number and voxel
// byte-swapped (the NIfTI-1 header's layout: int32, int16 and float fields).
void write_big_endian_copy(const std::string& little, const std::string& big) {
  std::ifstream in(little, std::ios::binary);
  std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  float offset = 0;
  std::memcpy(&offset, b.data() + 108, 4);  // where the voxels start, read before the swap
  auto swap = [&b](std::size_t at, std::size_t width) {
    std::reverse(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + width));
  };
  const std::pair<std::size_t, std::size_t> int16_runs[] = {{36, 1}, {40, 8}, {68, 4}, {120, 1}, {252, 2}};
  const std::pair<std::size_t, std::size_t> int32_runs[] = {{0, 1},   {32, 1},  {56, 3},  {76, 8},
                                                            {108, 3}, {124, 6}, {256, 18}};
  for (const auto& [at, count] : int16_runs)
    for (std::size_t i = 0; i < count; ++i) swap(at + 2 * i, 2);
  for (const auto& [at, count] : int32_runs)
    for (std::size_t i = 0; i < count; ++i) swap(at + 4 * i, 4);
  for (std::size_t at = static_cast<std::size_t>(offset); at + 4 <= b.size(); at += 4) swap(at, 4);
  std::ofstream(big, std::ios::binary) << b;
}

}  // namespace

// Issue 38: a valid big-endian NIfTI from another tool gave "provenance not
// readable" in the viewer. It has no provenance of ours, and that is no error;
// the volume itself reads as the little-endian original.
TEST(NiftiExtension, ABigEndianFileFromAnotherToolHasNoProvenanceAndNoError) {
  test::TempDir dir("nifti-big-endian");
  const std::string little = (dir / "little.nii").string(), big = (dir / "big.nii").string();
  write_volume(ramp(), little);
  write_big_endian_copy(little, big);
  EXPECT_TRUE(read_nifti_comment_extensions(big).empty());
  const Volume v = read_volume(big);
  EXPECT_EQ(v.size, ramp().size);
  EXPECT_EQ(v.voxels, ramp().voxels);
  // A little-endian file that is not NIfTI at all is still refused.
  const std::string junk = (dir / "junk.nii").string();
  std::ofstream(junk) << std::string(400, 'x');
  EXPECT_THROW(read_nifti_comment_extensions(junk), DataError);
}

TEST(NiftiExtensionErrors, AFileThatIsNotSingleFileNifti1IsRefusedNamingIt) {
  test::TempDir dir("nifti-ext");
  const std::string path = (dir / "not.nii").string();
  std::ofstream(path) << std::string(400, 'x');
  try {
    add_nifti_comment_extension(path, "x");
    FAIL() << "a non-NIfTI file must be refused";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

namespace {

// Peak resident memory of this process so far, in MiB.
double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// A small volume with a provenance comment, then `extra_mib` MiB of zeros
// after its voxel data, all gzip-compressed: a few hundred KB on disk that
// inflate to hundreds of MB (issue 37's gzip bomb through the provenance reader).
std::string write_bomb(const fs::path& dir, int extra_mib) {
  const std::string path = (dir / "bomb.nii.gz").string();
  write_volume(ramp(), path);
  add_nifti_comment_extension(path, R"({"medsynth_provenance":{"seed":1}})");
  std::string raw;
  {
    gzFile in = gzopen(path.c_str(), "rb");
    char buffer[1 << 16];
    for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) raw.append(buffer, static_cast<std::size_t>(n));
    gzclose(in);
  }
  gzFile out = gzopen(path.c_str(), "wb1");
  gzwrite(out, raw.data(), static_cast<unsigned>(raw.size()));
  const std::string zeros(1 << 20, '\0');
  for (int i = 0; i < extra_mib; ++i) gzwrite(out, zeros.data(), static_cast<unsigned>(zeros.size()));
  gzclose(out);
  return path;
}

}  // namespace

// Reading the provenance reads the header and its extensions, never the
// whole inflated file: a 256 MiB bomb leaves the peak memory where it was
// (today's reader inflated all of it into one string first).
TEST(NiftiExtensionErrors, AGzipBombCostsTheProvenanceReaderNothing) {
  test::TempDir dir("nifti-ext-bomb");
  const std::string path = write_bomb(dir.path(), 256);
  ASSERT_LT(fs::file_size(path), 2u << 20) << "the bomb should be small on disk";
  const double before = peak_rss_mib();
  const auto texts = read_nifti_comment_extensions(path);
  const double grown = peak_rss_mib() - before;
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], R"({"medsynth_provenance":{"seed":1}})");
  EXPECT_LT(grown, 32.0) << "reading the provenance of a 256 MiB bomb raised the peak by " << grown << " MiB";
}

// Adding an extension rewrites the file, so it is read whole, but only after
// the header guard: a file that inflates past its declared data (plus the
// guard's slack) is refused naming it, before anything is allocated for it.
TEST(NiftiExtensionErrors, AddingToAGzipBombIsRefusedByTheGuard) {
  test::TempDir dir("nifti-ext-bomb");
  const std::string path = write_bomb(dir.path(), 64);
  const double before = peak_rss_mib();
  try {
    add_nifti_comment_extension(path, "more");
    ADD_FAILURE() << "a file that inflates 64 MiB past its data was extended";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_LT(peak_rss_mib() - before, 32.0);
}
