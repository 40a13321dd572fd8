// Comment extensions (provenance) added to NIfTI files that ITK wrote: the
// text comes back, the voxels and geometry are unchanged for our reader (and
// so for ITK, which reads them), a second extension keeps the first, and a
// file that is not single-file NIfTI-1 is refused naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
