// Training data in the other formats read_volume reads: NRRD (.nrrd, .nhdr +
// data file) and MetaImage (.mha, .mhd + data file) are listed beside NIfTI,
// read to the same preprocessed voxels, refused at dataset construction when
// their header or data length is wrong or they hold NaN (naming the file), label maps beside
// their images are left out for every format, and two files that would get
// the same id are refused. The files are written by hand here, not by ITK,
// so the reader sees headers it did not produce itself.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_listing.hpp"
#include "data_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::write_small_ct;

std::string float_bytes(const Volume& v) {
  std::string bytes(v.voxels.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), v.voxels.data(), bytes.size());  // x86/ARM: little-endian, as the headers say
  return bytes;
}

// small_ct_volume(base_hu) (6x5x4, spacing 1 x 1.5 x 2 mm) as raw float NRRD:
// attached for .nrrd, a header naming `<stem>.raw` beside it for .nhdr.
void write_small_ct_nrrd(const fs::path& path, float base_hu) {
  const std::string data = float_bytes(test::small_ct_volume(base_hu));
  std::string header =
      "NRRD0004\n# written by hand for medsynth's tests\ntype: float\ndimension: 3\n"
      "space: left-posterior-superior\nsizes: 6 5 4\nspace directions: (1,0,0) (0,1.5,0) (0,0,2)\n"
      "space origin: (0,0,0)\nendian: little\nencoding: raw\n";
  if (path.extension() == ".nhdr") {
    const fs::path raw = fs::path(path).replace_extension(".raw");
    test::write_bytes(path, header + "data file: " + raw.filename().string() + "\n");
    test::write_bytes(raw, data);
  } else {
    test::write_bytes(path, header + "\n" + data);
  }
}

// The same volume as MetaImage: ElementDataFile LOCAL for .mha, `<stem>.raw` for .mhd.
void write_small_ct_meta(const fs::path& path, float base_hu, const std::string& dim_size = "6 5 4") {
  const std::string data = float_bytes(test::small_ct_volume(base_hu));
  const std::string header =
      "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
      "TransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = 0 0 0\nElementSpacing = 1 1.5 2\nDimSize = " +
      dim_size + "\nElementType = MET_FLOAT\n";
  if (path.extension() == ".mhd") {
    const fs::path raw = fs::path(path).replace_extension(".raw");
    test::write_bytes(path, header + "ElementDataFile = " + raw.filename().string() + "\n");
    test::write_bytes(raw, data);
  } else {
    test::write_bytes(path, header + "ElementDataFile = LOCAL\n" + data);
  }
}

DataSpec folder_of(const TempDir& dir) {
  DataSpec spec;
  spec.source = DataSource::folder;
  spec.path = dir.path().string();
  spec.patch_size = {4, 4, 4};
  return spec;
}

// The DataError a dataset over `spec` throws on construction.
DataError construction_error(const DataSpec& spec) {
  try {
    VolumeDataset ds(spec, "all", 0);
  } catch (const DataError& e) {
    return e;
  }
  ADD_FAILURE() << "the dataset was built";
  return DataError(spec.path, "no error");
}

TEST(FolderFormats, NrrdAndMetaImageAreListedBesideNiftiAndReadAlike) {
  TempDir dir("data-formats");
  write_small_ct(dir / "a.nii.gz", -300.0f);
  write_small_ct_nrrd(dir / "b.nrrd", -300.0f);
  write_small_ct_nrrd(dir / "c.NHDR", -300.0f);
  write_small_ct_meta(dir / "d.mha", -300.0f);
  write_small_ct_meta(dir / "e.mhd", -300.0f);
  test::write_bytes(dir / "notes.txt", "not a volume");
  const auto entries = list_volume_folder(dir.path().string());
  std::vector<std::string> ids;
  for (const auto& e : entries) ids.push_back(e.id);
  // The .raw data files of c.NHDR and e.mhd are not volumes of their own.
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "c", "d", "e"}));

  const VolumeDataset all(folder_of(dir), "all", 0);
  ASSERT_EQ(all.size(), 5u);
  const Volume& nifti = all.get(0);
  for (std::size_t i = 1; i < all.size(); ++i) {
    const Volume& v = all.get(i);
    EXPECT_EQ(v.size, nifti.size) << all.id(i);
    EXPECT_EQ(v.voxels, nifti.voxels) << all.id(i) << " is not preprocessed to the NIfTI copy's voxels";
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(v.spacing[a], nifti.spacing[a], 1e-9) << all.id(i);
  }
  // Voxel i held -300 + i HU: (-300 + i + 1000) / 2000 after the CT window.
  EXPECT_NEAR(all.get(3).voxels[7], (700.0 + 7.0) / 2000.0, 1e-6);
}

TEST(FolderFormats, ABadHeaderOrShortDataFailsAtConstructionNamingTheFile) {
  {
    TempDir dir("data-formats-bad");
    write_small_ct(dir / "a.nii.gz", 0.0f);
    write_small_ct_nrrd(dir / "b.nrrd", 0.0f);
    const std::string bytes = test::read_bytes(dir / "b.nrrd");
    test::write_bytes(dir / "b.nrrd", bytes.substr(0, bytes.size() - 40));
    const DataError e = construction_error(folder_of(dir));
    EXPECT_EQ(e.path(), (dir / "b.nrrd").string());
    EXPECT_NE(e.reason().find("truncated: holds 440 of 480 bytes"), std::string::npos) << e.what();
  }
  {
    TempDir dir("data-formats-bad");
    write_small_ct(dir / "a.nii.gz", 0.0f);
    write_small_ct_meta(dir / "b.mha", 0.0f, "4096 4096 4096");  // 64 Gi voxels from a tiny file
    const DataError e = construction_error(folder_of(dir));
    EXPECT_EQ(e.path(), (dir / "b.mha").string());
    EXPECT_NE(e.reason().find("over the cap"), std::string::npos) << e.what();
  }
  {
    TempDir dir("data-formats-bad");
    write_small_ct(dir / "a.nii.gz", 0.0f);
    write_small_ct_nrrd(dir / "b.nhdr", 0.0f);
    fs::remove(dir / "b.raw");
    const DataError e = construction_error(folder_of(dir));
    EXPECT_EQ(e.path(), (dir / "b.nhdr").string());
    EXPECT_NE(std::string(e.what()).find("b.raw"), std::string::npos) << e.what();
  }
  {
    // NaN in float data is found before step 0, as the NIfTI guard finds it.
    TempDir dir("data-formats-bad");
    write_small_ct(dir / "a.nii.gz", 0.0f);
    write_small_ct_nrrd(dir / "b.nrrd", 0.0f);
    std::string bytes = test::read_bytes(dir / "b.nrrd");
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(bytes.data() + bytes.size() - sizeof(float), &nan, sizeof(float));
    test::write_bytes(dir / "b.nrrd", bytes);
    const DataError e = construction_error(folder_of(dir));
    EXPECT_EQ(e.path(), (dir / "b.nrrd").string());
    EXPECT_NE(e.reason().find("contains 1 non-finite voxels"), std::string::npos) << e.what();
  }
  {
    TempDir dir("data-formats-bad");
    write_small_ct(dir / "a.nii.gz", 0.0f);
    test::write_bytes(dir / "b.mhd", "this is no MetaImage header\n");
    const DataError e = construction_error(folder_of(dir));
    EXPECT_EQ(e.path(), (dir / "b.mhd").string());
    EXPECT_NE(e.reason().find("MetaImage"), std::string::npos) << e.what();
  }
}

TEST(FolderFormats, LabelMapsBesideTheirImagesAreNotTrainingVolumes) {
  TempDir dir("data-formats-labels");
  write_small_ct(dir / "p_image.nii.gz", 0.0f);
  write_small_ct(dir / "p_label.nii.gz", 1.0f);
  write_small_ct_nrrd(dir / "q_image.nrrd", 0.0f);
  write_small_ct_nrrd(dir / "q_label.nrrd", 1.0f);
  write_small_ct_meta(dir / "r_image.mha", 0.0f);
  write_small_ct_meta(dir / "r_label.mha", 1.0f);
  // A label without its image, or beside an image of another format, is a volume like any other.
  write_small_ct_meta(dir / "s_label.mhd", 1.0f);
  write_small_ct(dir / "t_image.nii.gz", 0.0f);
  write_small_ct_nrrd(dir / "t_label.nrrd", 1.0f);
  std::vector<std::string> ids;
  for (const auto& e : list_volume_folder(dir.path().string())) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"p_image", "q_image", "r_image", "s_label", "t_image", "t_label"}));
}

TEST(FolderFormats, TwoFilesWithTheSameIdAreRefusedNamingBoth) {
  TempDir dir("data-formats-same-id");
  write_small_ct(dir / "case1.nii.gz", 0.0f);
  write_small_ct_nrrd(dir / "case1.nrrd", 0.0f);
  write_small_ct(dir / "case2.nii.gz", 0.0f);
  try {
    list_volume_folder(dir.path().string());
    FAIL() << "case1.nii.gz and case1.nrrd were both listed";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), dir.path().string());
    EXPECT_NE(e.reason().find("case1.nii.gz and case1.nrrd have the same name 'case1'"), std::string::npos) << e.what();
  }
}

TEST(FolderFormats, AFolderWithoutVolumesNamesEveryFormat) {
  TempDir dir("data-formats-empty");
  test::write_bytes(dir / "scan.raw", std::string(480, '\0'));
  test::write_bytes(dir / "scan.png", "png");
  try {
    list_volume_folder(dir.path().string());
    FAIL() << "a folder without volumes was listed";
  } catch (const DataError& e) {
    EXPECT_NE(e.reason().find("no volumes (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd files or DICOM series folders)"),
              std::string::npos)
        << e.what();
  }
}

TEST(ManifestFormats, RowsMayNameNrrdAndMetaImageFiles) {
  TempDir dir("data-formats-csv");
  write_small_ct_nrrd(dir / "x1.nrrd", 0.0f);
  write_small_ct_meta(dir / "x2.mhd", 100.0f);
  write_small_ct(dir / "x3.nii", 200.0f);
  test::write_bytes(dir / "x4.png", "png");
  test::write_bytes(dir / "m.csv", "image\nx1.nrrd\nx2.mhd\nx3.nii\n");
  DataSpec spec;
  spec.source = DataSource::csv;
  spec.path = (dir / "m.csv").string();
  const VolumeDataset all(spec, "all", 0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all.id(0), "x1");
  EXPECT_EQ(all.id(1), "x2");
  EXPECT_NEAR(all.get(1).voxels[0], (100.0 + 1000.0) / 2000.0, 1e-6);
  test::write_bytes(dir / "m.csv", "image\nx1.nrrd\nx4.png\n");
  try {
    VolumeDataset bad(spec, "all", 0);
    FAIL() << "a .png row was accepted";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()), spec.path + ":3: image 'x4.png' is neither a volume file (.nii, .nii.gz, .nrrd, "
                                                   ".nhdr, .mha, .mhd) nor a DICOM folder");
  }
}

}  // namespace
}  // namespace medsynth
