// Issue 39 item 4 through the engine: MAISI CT's classes described for a
// DICOM-SEG (names, SNOMED codes where one structure has one, laterality,
// the viewer's colours, private codes otherwise), and the verbs:
// `export-dicom IMAGE OUT --label LABEL` writes the CT series and its SEG in
// one folder, which still reads as the CT; `export-seg` writes the SEG of a
// label map drawn on an existing series; an off-grid label map leaves no
// folder behind. dcmdump (package dcmtk) is the independent reader here;
// tests/engine/volume/dicom_seg_export_test.cpp reads the SEG back with
// DCMTK's own SEG classes voxel for voxel.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/label_dicom_codes.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "volume/label_palette.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

TEST(LabelDicomCodes, MaisiClassesGetTheirNamesCodesLateralityAndTheViewersColours) {
  const auto segments = maisi_ct_segments({1, 14, 26, 33, 200, 300});
  ASSERT_EQ(segments.size(), 6u);
  EXPECT_EQ(segments[0].name, "liver");
  EXPECT_EQ(segments[0].type.scheme + " " + segments[0].type.value, "SCT 10200004");
  EXPECT_EQ(segments[0].category.meaning, "Anatomical Structure");
  EXPECT_FALSE(segments[0].modifier);
  EXPECT_EQ(segments[0].colour, label_palette_colour(1));
  EXPECT_EQ(segments[1].name, "left kidney");
  EXPECT_EQ(segments[1].type.meaning, "Kidney");
  ASSERT_TRUE(segments[1].modifier);
  EXPECT_EQ(segments[1].modifier->meaning, "Left");
  EXPECT_EQ(segments[2].name, "hepatic tumor");
  EXPECT_EQ(segments[2].category.meaning, "Morphologically Altered Structure");
  EXPECT_EQ(segments[3].name, "vertebrae L5");  // no single SNOMED code in the table: a private one
  EXPECT_EQ(segments[3].type.scheme + " " + segments[3].type.value, "99MEDSYNTH MAISI-33");
  EXPECT_EQ(segments[4].type.meaning, "Entire body");
  EXPECT_EQ(segments[5].name, "label 300");
  EXPECT_EQ(segments[5].type.value, "LABEL-300");
  EXPECT_EQ(segments[5].colour, label_palette_colour(label_palette_slot(300.0f)));
}

// Issue 53 item 7: the five lung lobes shared "Lung" plus a laterality, four
// tumour types shared "Neoplasm". Now each class is told apart by its codes:
// the lobes as CID 7151 has them, a lesion by the organ it lies in.
TEST(LabelDicomCodes, LungLobesAndLesionsKeepTheirAnatomy) {
  const std::vector<int> labels{23, 24, 26, 27, 28, 29, 30, 31, 32, 116, 117, 128};
  const auto segments = maisi_ct_segments(labels);
  ASSERT_EQ(segments.size(), labels.size());
  const auto text = [](const std::optional<DicomCode>& c) { return c ? c->scheme + ":" + c->value : std::string("-"); };
  std::set<std::string> described;
  for (const auto& s : segments) {
    const std::string codes = s.type.scheme + ":" + s.type.value + " " + text(s.modifier) + " " + text(s.region) + " " +
                              text(s.region_modifier);
    EXPECT_TRUE(described.insert(codes).second) << s.name << " is coded as another class: " << codes;
    EXPECT_NE(s.type.scheme, "99MEDSYNTH") << s.name << " has a DICOM code";
  }
  const auto& left_upper = segments[4];  // 28
  EXPECT_EQ(left_upper.name, "left lung upper lobe");
  EXPECT_EQ(left_upper.type.value + " " + left_upper.type.meaning, "45653009 Upper lobe of lung");
  ASSERT_TRUE(left_upper.modifier);
  EXPECT_EQ(left_upper.modifier->meaning, "Left");
  const auto& middle = segments[7];  // 31: the code names its side
  EXPECT_EQ(middle.type.meaning, "Middle lobe of right lung");
  EXPECT_FALSE(middle.modifier);
  const auto& lung_tumour = segments[0];  // 23
  EXPECT_EQ(lung_tumour.type.meaning, "Neoplasm");
  EXPECT_EQ(lung_tumour.category.meaning, "Morphologically Altered Structure");
  ASSERT_TRUE(lung_tumour.region);
  EXPECT_EQ(lung_tumour.region->meaning, "Lung");
  const auto& left_cyst = segments[9];  // 116: the side modifies the organ, not the cyst
  EXPECT_EQ(left_cyst.type.meaning, "Cyst");
  ASSERT_TRUE(left_cyst.region && left_cyst.region_modifier);
  EXPECT_EQ(left_cyst.region->meaning + " " + left_cyst.region_modifier->meaning, "Kidney Left");
  EXPECT_FALSE(left_cyst.modifier);
  EXPECT_EQ(maisi_ct_private_coding_scheme().designator, "99MEDSYNTH");
}

struct Pair {
  Volume image, label;
};

Pair make_pair() {
  Pair p{make_volume({16, 12, 5}, {1.5, 1.5, 3.0}), {}};
  p.image.direction = {-1, 0, 0, 0, -1, 0, 0, 0, 1};
  for (std::size_t i = 0; i < p.image.voxels.size(); ++i) p.image.voxels[i] = -900.0f + static_cast<float>(i % 300);
  p.label = p.image;
  std::fill(p.label.voxels.begin(), p.label.voxels.end(), 0.0f);
  for (std::size_t z = 1; z < 4; ++z)
    for (std::size_t y = 2; y < 6; ++y)
      for (std::size_t x = 3; x < 9; ++x) p.label.at(x, y, z) = 1.0f;
  p.label.at(12, 8, 4) = 5.0f;
  return p;
}

// dcmdump's path (run_process does not search PATH); empty when absent.
std::string dcmdump_path() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"})
    if (fs::exists(fs::path(dir) / "dcmdump")) return (fs::path(dir) / "dcmdump").string();
  return {};
}

std::string dump(const fs::path& file) {
  const auto r = test::run_process({dcmdump_path(), file.string()}, file.parent_path().string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

bool has_dcmdump() { return !dcmdump_path().empty(); }

// Writes the pair as x_image/x_label.nii.gz and runs export-dicom --label into `out`.
test::ProcessResult export_pair(const test::TempDir& dir, const Pair& p, const fs::path& out) {
  write_volume(p.image, (dir / "x_image.nii.gz").string());
  write_volume(p.label, (dir / "x_label.nii.gz").string());
  return test::run_process({test::engine_binary(), "export-dicom", (dir / "x_image.nii.gz").string(), out.string(),
                            "--label", (dir / "x_label.nii.gz").string()},
                           dir.path().string());
}

TEST(LabelDicomExport, ExportDicomWithALabelWritesTheSeriesAndItsSegInOneFolder) {
  if (!has_dcmdump()) GTEST_SKIP() << "dcmdump (Debian package dcmtk, installer/packages/test.txt) is not installed";
  test::TempDir dir("export-dicom-label");
  const Pair p = make_pair();
  const fs::path out = dir / "x-dicom";
  const auto r = export_pair(dir, p, out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DICOM-SEG: 2 segments, 4 frames"), std::string::npos) << r.out;
  const std::string seg = dump(out / "segmentation.dcm");
  EXPECT_NE(seg.find("[SEG]"), std::string::npos);
  EXPECT_NE(seg.find("[liver]"), std::string::npos) << "SegmentLabel";
  EXPECT_NE(seg.find("[right kidney]"), std::string::npos) << "SegmentLabel";
  const std::string ct = dump(out / "slice_0001.dcm");
  const auto uid_of = [](const std::string& text, const std::string& name) {
    const auto at = text.rfind(name);  // the last one: the top-level element, after nested sequences
    const auto line = text.rfind('\n', at);
    const auto open = text.find('[', line), close = text.find(']', open);
    return text.substr(open + 1, close - open - 1);
  };
  EXPECT_NE(seg.find(uid_of(ct, "SeriesInstanceUID")), std::string::npos) << "the SEG references the CT series";
  EXPECT_EQ(uid_of(seg, "StudyInstanceUID"), uid_of(ct, "StudyInstanceUID"));
  EXPECT_EQ(read_volume(out.string()).size, p.image.size);  // the folder still reads as the CT

  // The same label map as a SEG of that series, written by export-seg.
  const fs::path second = dir / "second-seg.dcm";
  const auto s = test::run_process(
      {test::engine_binary(), "export-seg", (dir / "x_label.nii.gz").string(), out.string(), second.string()},
      dir.path().string());
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(dump(second).find(uid_of(ct, "SeriesInstanceUID")), std::string::npos);
}

// The same, as a reader of the file sees it: dcmdump finds the tumour's
// organ (AnatomicRegionSequence) and the private scheme named in the
// CodingSchemeIdentificationSequence (dciodvfy warned without it).
TEST(LabelDicomExport, TheSegNamesATumoursOrganAndItsPrivateScheme) {
  if (!has_dcmdump()) GTEST_SKIP() << "dcmdump (Debian package dcmtk, installer/packages/test.txt) is not installed";
  test::TempDir dir("export-dicom-codes");
  Pair p = make_pair();
  p.label.at(12, 8, 4) = 23.0f;  // lung tumor
  p.label.at(2, 1, 0) = 33.0f;   // vertebrae L5: a private code
  const fs::path out = dir / "x-dicom";
  const auto r = export_pair(dir, p, out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string seg = dump(out / "segmentation.dcm");
  const auto region = seg.find("(0008,2218) SQ");
  ASSERT_NE(region, std::string::npos) << "AnatomicRegionSequence\n" << seg;
  EXPECT_NE(seg.find("[Lung]", region), std::string::npos) << seg;
  const auto schemes = seg.find("(0008,0110) SQ");
  ASSERT_NE(schemes, std::string::npos) << "CodingSchemeIdentificationSequence\n" << seg;
  EXPECT_NE(seg.find("(0008,0102) SH [99MEDSYNTH]", schemes), std::string::npos) << seg;
  EXPECT_NE(seg.find("(0008,0115) ST [medsynth label classes]", schemes), std::string::npos) << seg;
}

TEST(LabelDicomExport, AnOffGridLabelLeavesNoFolderBehind) {
  test::TempDir dir("export-dicom-off-grid");
  Pair p = make_pair();
  p.label.origin[2] += 1.5;
  const fs::path out = dir / "x-dicom";
  const auto r = export_pair(dir, p, out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("x_label.nii.gz: does not lie on the voxel grid of"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its origin differs"), std::string::npos) << r.err;  // what differs, named
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
