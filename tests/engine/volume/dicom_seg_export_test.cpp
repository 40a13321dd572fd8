// write_dicom_seg: a label map exported beside its CT series as a DICOM-SEG is
// read back by DCMTK's own SEG reader (dcmseg) and by dcmdump, an independent
// parser. The frames rebuild the label map voxel for voxel, each frame names
// the CT slice at its position, the referenced series is the exported CT's,
// and the segments carry their names, codes and colours. A folder holding
// both still reads as the CT. Bad label maps and off-grid ones are refused
// naming the file, and nothing is left behind.
#include <gtest/gtest.h>

#include <dcmtk/config/osconfig.h>  // DCMTK's configuration first

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmfg/fgderimg.h>
#include <dcmtk/dcmfg/fgplanor.h>
#include <dcmtk/dcmfg/fgplanpo.h>
#include <dcmtk/dcmfg/fgseg.h>
#include <dcmtk/dcmseg/segdoc.h>
#include <dcmtk/dcmseg/segment.h>
#include <dcmtk/dcmseg/segutils.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "support/temp_dir.hpp"
#include "volume/dicom_export.hpp"
#include "volume/dicom_file_guard.hpp"
#include "volume/dicom_seg_export.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

Volume make_ct(std::array<double, 9> direction) {
  Volume v = make_volume({20, 16, 7}, {0.7, 0.8, 2.5});
  v.origin = {12.5, -30.25, 40.0};
  v.direction = direction;
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = -1000.0f + static_cast<float>(i % 977);
  return v;
}

// Three labels of different shapes and extents: a liver box over slices 1-3,
// a kidney slab over 2-6 that touches the edges, the body envelope on slice 0
// only, and one voxel of label 300 (no MAISI class) on the last slice.
Volume make_label(const Volume& ct) {
  Volume l = ct;
  std::fill(l.voxels.begin(), l.voxels.end(), 0.0f);
  for (std::size_t z = 0; z < 7; ++z)
    for (std::size_t y = 0; y < 16; ++y)
      for (std::size_t x = 0; x < 20; ++x) {
        if (z >= 1 && z <= 3 && x >= 2 && x < 9 && y >= 3 && y < 8) l.at(x, y, z) = 1;
        if (z >= 2 && x >= 12 && y >= 5 + (z % 3)) l.at(x, y, z) = 5;
        if (z == 0 && (x + y) % 3 == 0) l.at(x, y, z) = 200;
      }
  l.at(19, 15, 6) = 300;
  return l;
}

DicomSegOptions options_for_test() {
  DicomSegOptions o;
  o.source = "label.nii.gz";
  o.segments = {
      {1,
       "liver",
       {"SCT", "123037004", "Anatomical Structure"},
       {"SCT", "10200004", "Liver"},
       std::nullopt,
       {0.9, 0.1, 0.1}},
      {5,
       "right kidney",
       {"SCT", "123037004", "Anatomical Structure"},
       {"SCT", "64033007", "Kidney"},
       DicomCode{"SCT", "24028007", "Right"},
       {0.85, 0.2, 0.85}},
      {200,
       "body",
       {"SCT", "123037004", "Anatomical Structure"},
       {"SCT", "38266002", "Entire body"},
       std::nullopt,
       {0.1, 0.8, 0.8}},
      {300,
       "label 300",
       {"SCT", "123037004", "Anatomical Structure"},
       {"99MEDSYNTH", "LABEL-300", "label 300"},
       std::nullopt,
       {0.5, 0.5, 0.5}},
      {7,
       "inferior vena cava",
       {"SCT", "123037004", "Anatomical Structure"},
       {"SCT", "64131007", "Inferior vena cava"},
       std::nullopt,
       {0.2, 0.2, 0.9}},  // not in the map: no segment
  };
  o.coding_schemes = {{"99MEDSYNTH", "medsynth label classes", "medsynth"}, {"99UNUSED", "not used", "nobody"}};
  return o;
}

std::string element(DcmItem& item, const DcmTagKey& key) {
  OFString value;
  item.findAndGetOFStringArray(key, value);  // this item's own element, not a nested one
  return value.c_str();
}

// SOPInstanceUID -> ImagePositionPatient of each CT file, and the series UID.
struct CtSeries {
  std::string series_uid;
  std::map<std::string, std::array<double, 3>> positions;
};

CtSeries read_ct(const fs::path& folder) {
  CtSeries ct;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().filename() == "segmentation.dcm") continue;
    DcmFileFormat file;
    EXPECT_TRUE(file.loadFile(entry.path().c_str()).good()) << entry.path();
    DcmDataset& d = *file.getDataset();
    ct.series_uid = element(d, DCM_SeriesInstanceUID);
    std::array<double, 3> p{};
    for (unsigned long i = 0; i < 3; ++i) d.findAndGetFloat64(DCM_ImagePositionPatient, p[i], i);
    ct.positions[element(d, DCM_SOPInstanceUID)] = p;
  }
  return ct;
}

// The label map rebuilt from the SEG's frames with DCMTK's reader: each frame's
// segment gives the value (through its SegmentLabel), its plane position the
// slice; also checks that each frame derives from the CT slice at its position.
Volume rebuild(const fs::path& seg_file, const Volume& grid, const DicomSegOptions& options, const CtSeries& ct) {
  DcmSegmentation* raw = nullptr;
  const OFCondition loaded = DcmSegmentation::loadFile(seg_file.c_str(), raw);
  EXPECT_TRUE(loaded.good()) << loaded.text();
  std::unique_ptr<DcmSegmentation> seg(raw);
  Volume out = grid;
  std::fill(out.voxels.begin(), out.voxels.end(), 0.0f);
  if (!seg) return out;
  std::map<Uint16, int> value_of;
  for (Uint16 n = 1; n <= seg->getNumberOfSegments(); ++n) {
    OFString name;
    seg->getSegment(n)->getSegmentLabel(name);
    for (const auto& s : options.segments)
      if (s.name == name.c_str()) value_of[n] = s.label;
  }
  const Uint16 rows = static_cast<Uint16>(grid.size[1]), columns = static_cast<Uint16>(grid.size[0]);
  for (std::size_t f = 0; f < seg->getNumberOfFrames(); ++f) {
    auto* identification = dynamic_cast<FGSegmentation*>(
        seg->getFunctionalGroups().get(static_cast<Uint32>(f), DcmFGTypes::EFG_SEGMENTATION));
    auto* position = dynamic_cast<FGPlanePosPatient*>(
        seg->getFunctionalGroups().get(static_cast<Uint32>(f), DcmFGTypes::EFG_PLANEPOSPATIENT));
    auto* derivation = dynamic_cast<FGDerivationImage*>(
        seg->getFunctionalGroups().get(static_cast<Uint32>(f), DcmFGTypes::EFG_DERIVATIONIMAGE));
    if (!identification || !position || !derivation) {
      ADD_FAILURE() << "frame " << f << " lacks a functional group";
      continue;
    }
    Uint16 number = 0;
    identification->getReferencedSegmentNumber(number);
    Float64 x = 0, y = 0, z = 0;
    position->getImagePositionPatient(x, y, z);
    // The slice along the volume's third axis whose origin is that position.
    const std::array<double, 3> normal{grid.direction[2], grid.direction[5], grid.direction[8]};
    const double along =
        ((x - grid.origin[0]) * normal[0] + (y - grid.origin[1]) * normal[1] + (z - grid.origin[2]) * normal[2]) /
        grid.spacing[2];
    const auto slice = static_cast<std::size_t>(std::lround(along));
    EXPECT_NEAR(along, static_cast<double>(slice), 1e-3) << "frame " << f;
    OFString source;
    derivation->getDerivationImageItems()
        .at(0)
        ->getSourceImageItems()
        .at(0)
        ->getImageSOPInstanceReference()
        .getReferencedSOPInstanceUID(source);
    const auto ct_slice = ct.positions.find(source.c_str());
    if (ct_slice == ct.positions.end()) {
      ADD_FAILURE() << "frame " << f << " derives from " << source << ", not a file of the CT series";
    } else {
      EXPECT_NEAR(ct_slice->second[0], x, 1e-3);
      EXPECT_NEAR(ct_slice->second[1], y, 1e-3);
      EXPECT_NEAR(ct_slice->second[2], z, 1e-3);
    }
    auto* orientation = dynamic_cast<FGPlaneOrientationPatient*>(
        seg->getFunctionalGroups().get(static_cast<Uint32>(f), DcmFGTypes::EFG_PLANEORIENTPATIENT));
    if (!orientation) {
      ADD_FAILURE() << "frame " << f << " has no plane orientation";
      continue;
    }
    std::array<Float64, 6> cosines{};
    orientation->getImageOrientationPatient(cosines[0], cosines[1], cosines[2], cosines[3], cosines[4], cosines[5]);
    const DcmIODTypes::Frame* frame = seg->getFrame(f);
    std::unique_ptr<DcmIODTypes::Frame> unpacked;
    if (frame->length < static_cast<size_t>(rows) * columns) {
      unpacked.reset(DcmSegUtils::unpackBinaryFrame(frame, rows, columns));
      frame = unpacked.get();
    }
    // Each pixel placed where it lies in space, as a reader of the SEG places
    // it: position + column x spacing x row cosines + row x spacing x column
    // cosines, then into the label's grid.
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < columns; ++c) {
        if (frame->pixData[r * columns + c] == 0) continue;
        std::array<double, 3> point{x, y, z};
        for (std::size_t i = 0; i < 3; ++i)
          point[i] += static_cast<double>(c) * grid.spacing[0] * cosines[i] +
                      static_cast<double>(r) * grid.spacing[1] * cosines[3 + i];
        std::array<std::size_t, 3> index{};
        for (std::size_t a = 0; a < 3; ++a) {
          double along = 0;
          for (std::size_t i = 0; i < 3; ++i) along += (point[i] - grid.origin[i]) * grid.direction[i * 3 + a];
          index[a] = static_cast<std::size_t>(std::lround(along / grid.spacing[a]));
        }
        bool inside = index[2] == slice;
        for (std::size_t a = 0; a < 3; ++a) inside = inside && index[a] < grid.size[a];
        if (!inside) {
          ADD_FAILURE() << "frame " << f << " pixel (" << c << ", " << r << ") lies off the label's grid";
          continue;
        }
        float& v = out.at(index[0], index[1], index[2]);
        EXPECT_EQ(v, 0.0f) << "two segments claim one voxel";
        v = static_cast<float>(value_of[number]);
      }
  }
  return out;
}

std::size_t mismatches(const Volume& a, const Volume& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.voxels.size(); ++i) n += a.voxels[i] != b.voxels[i];
  return n;
}

std::string referenced_series_uid(const fs::path& seg_file) {
  DcmFileFormat file;
  EXPECT_TRUE(file.loadFile(seg_file.c_str()).good());
  DcmItem* item = nullptr;
  if (file.getDataset()->findAndGetSequenceItem(DCM_ReferencedSeriesSequence, item, 0).bad() || !item) return "<none>";
  return element(*item, DCM_SeriesInstanceUID);
}

class DicomSegExport : public ::testing::TestWithParam<bool> {
 protected:
  test::TempDir dir_{"dicom_seg_export"};
};

// Right-handed (generate's RAS-in-LPS axes) and left-handed (written from the
// last slice by write_dicom_series) geometry.
TEST_P(DicomSegExport, RebuildsTheLabelMapVoxelForVoxelAndReferencesTheExportedSeries) {
  const bool left_handed = GetParam();
  const Volume ct = make_ct(left_handed ? std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, -1}
                                        : std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1});
  const Volume label = make_label(ct);
  const fs::path out = dir_ / "pair";
  write_dicom_series(ct, {}, out.string());
  const DicomSegOptions options = options_for_test();
  const fs::path seg_file = out / "segmentation.dcm";
  const DicomSegWritten written = write_dicom_seg(label, options, out.string(), seg_file.string());

  const CtSeries series = read_ct(out);
  EXPECT_EQ(series.positions.size(), 7u);
  EXPECT_EQ(written.referenced_series_uid, series.series_uid);
  EXPECT_EQ(referenced_series_uid(seg_file), series.series_uid);
  EXPECT_EQ(written.segments, 4u);  // IVC is described but absent from the map
  // liver 3 slices, kidney 5, body 1, label 300 1.
  EXPECT_EQ(written.frames, 10u);
  const Volume back = rebuild(seg_file, ct, options, series);
  EXPECT_EQ(mismatches(back, label), 0u);

  DcmFileFormat file;
  ASSERT_TRUE(file.loadFile(seg_file.c_str()).good());
  DcmDataset& d = *file.getDataset();
  EXPECT_EQ(element(d, DCM_Modality), "SEG");
  EXPECT_EQ(element(d, DCM_SOPClassUID), "1.2.840.10008.5.1.4.1.1.66.4");
  EXPECT_EQ(element(d, DCM_SOPInstanceUID), written.sop_instance_uid);
  EXPECT_NE(element(d, DCM_SeriesInstanceUID), series.series_uid);  // a series of its own
  DcmFileFormat first_ct;
  ASSERT_TRUE(first_ct.loadFile((out / "slice_0001.dcm").c_str()).good());
  for (const DcmTagKey& key : {DCM_StudyInstanceUID, DCM_FrameOfReferenceUID, DCM_PatientID, DCM_PatientName})
    EXPECT_EQ(element(d, key), element(*first_ct.getDataset(), key)) << DcmTag(key).getTagName();

  // Names, codes, laterality and colour of the kidney segment.
  DcmSegmentation* raw = nullptr;
  ASSERT_TRUE(DcmSegmentation::loadFile(seg_file.c_str(), raw).good());
  std::unique_ptr<DcmSegmentation> seg(raw);
  ASSERT_EQ(seg->getNumberOfSegments(), 4u);
  DcmSegment* kidney = seg->getSegment(2);
  OFString text;
  kidney->getSegmentLabel(text);
  EXPECT_EQ(std::string(text.c_str()), "right kidney");
  kidney->getSegmentedPropertyTypeCode().getCodeValue(text);
  EXPECT_EQ(std::string(text.c_str()), "64033007");
  ASSERT_EQ(kidney->getSegmentedPropertyTypeModifierCode().size(), 1u);
  kidney->getSegmentedPropertyTypeModifierCode()[0]->getCodeMeaning(text);
  EXPECT_EQ(std::string(text.c_str()), "Right");
  Uint16 l = 0, a = 0, b = 0;
  ASSERT_TRUE(kidney->getRecommendedDisplayCIELabValue(l, a, b).good());
  EXPECT_GT(a, 32768 + 5000);  // magenta: far to the red side of a*
  EXPECT_LT(b, 32768);         // and to the blue side of b*

  // Issue 53 item 7: the private scheme of label 300's code is named, and
  // only the schemes the segments use.
  DcmItem* scheme = nullptr;
  ASSERT_TRUE(d.findAndGetSequenceItem(DCM_CodingSchemeIdentificationSequence, scheme, 0).good());
  EXPECT_EQ(element(*scheme, DCM_CodingSchemeDesignator), "99MEDSYNTH");
  EXPECT_EQ(element(*scheme, DCM_CodingSchemeName), "medsynth label classes");
  EXPECT_EQ(element(*scheme, DCM_CodingSchemeResponsibleOrganization), "medsynth");
  EXPECT_TRUE(d.findAndGetSequenceItem(DCM_CodingSchemeIdentificationSequence, scheme, 1).bad())
      << "99UNUSED is not used by any segment";

  // A folder holding the pair still reads as the CT (the SEG is skipped).
  const Volume again = read_volume(out.string());
  EXPECT_EQ(again.size, ct.size);
}

// Issue 50: a SEG's frames (segments x slices, one bit per pixel) were held
// to the voxel cap of a volume's floats, so a CT folder holding its SEG, as
// export-dicom --label writes it, could not be read back once segments x
// slices outgrew the cap (a 5-class map of a 512 x 512 x 1024 CT). Shown at
// small caps: this SEG's 10 frames outnumber the CT's 7 slices.
TEST(DicomSegExportDump, ASegIsBoundByItsStoredBitsNotByTheVoxelCap) {
  test::TempDir dir("dicom_seg_cap");
  const Volume ct = make_ct({-1, 0, 0, 0, -1, 0, 0, 0, 1});
  const fs::path out = dir / "pair";
  write_dicom_series(ct, {}, out.string());
  const fs::path seg_file = out / "segmentation.dcm";
  const DicomSegWritten written = write_dicom_seg(make_label(ct), options_for_test(), out.string(), seg_file.string());
  ASSERT_GT(written.frames, ct.size[2]);

  VolumeReadOptions exact;
  exact.max_voxels = ct.voxels.size();  // the CT fits exactly; its SEG has more frame pixels than that
  const Volume again = read_volume(out.string(), exact);
  EXPECT_EQ(again.size, ct.size);
  ASSERT_TRUE(check_dicom_file(seg_file.string(), exact).has_value());

  // Its bound is the byte cap x 8: one byte less than its packed frames is refused, by name.
  const std::uint64_t pixels = std::uint64_t{ct.size[0]} * ct.size[1] * written.frames;
  VolumeReadOptions tight = exact;
  tight.max_bytes = (pixels - 1) / 8;
  try {
    check_dicom_file(seg_file.string(), tight);
    ADD_FAILURE() << "a SEG over 8 x the byte cap was accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("segmentation.dcm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("one-bit frame pixels"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Handedness, DicomSegExport, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "LeftHanded" : "RightHanded"; });

TEST(DicomSegExportDump, DcmdumpParsesTheSegWithoutAWarning) {
  if (std::system("command -v dcmdump > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "dcmdump (Debian package dcmtk, installer/packages/test.txt) is not installed";
  test::TempDir dir{"dicom_seg_dump"};
  const Volume ct = make_ct({-1, 0, 0, 0, -1, 0, 0, 0, 1});
  write_dicom_series(ct, {}, (dir / "pair").string());
  const fs::path seg_file = dir / "pair" / "segmentation.dcm";
  write_dicom_seg(make_label(ct), options_for_test(), (dir / "pair").string(), seg_file.string());
  const fs::path log = dir / "dcmdump.log";
  const std::string command = "dcmdump -ll warn '" + seg_file.string() + "' > '" + log.string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(log);
  std::stringstream dump;
  dump << in.rdbuf();
  for (std::string line; std::getline(dump, line);) {
    EXPECT_NE(line.rfind("W:", 0), 0u) << line;
    EXPECT_NE(line.rfind("E:", 0), 0u) << line;
  }
  EXPECT_NE(dump.str().find("(0028,0008) IS [10]"), std::string::npos) << "NumberOfFrames";
  EXPECT_NE(dump.str().find("SegmentLabel"), std::string::npos);
}

class DicomSegExportRefuses : public ::testing::Test {
 protected:
  void SetUp() override { write_dicom_series(ct_, {}, series_.string()); }
  void expect_refused(const Volume& label, const DicomSegOptions& options, const std::string& fragment) {
    try {
      write_dicom_seg(label, options, series_.string(), seg_.string());
      ADD_FAILURE() << "accepted; expected an error with '" << fragment << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(seg_)) << "a refused export left a file";
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(series_)) ++files;
    EXPECT_EQ(files, 7u) << "a refused export left a temp file in the series folder";
  }
  test::TempDir dir_{"dicom_seg_refuses"};
  Volume ct_ = make_ct({-1, 0, 0, 0, -1, 0, 0, 0, 1});
  fs::path series_ = dir_ / "ct", seg_ = series_ / "segmentation.dcm";
};

TEST_F(DicomSegExportRefuses, ALabelMapOffTheSeriesGrid) {
  Volume shifted = make_label(ct_);
  shifted.origin[2] += 0.5 * shifted.spacing[2];
  expect_refused(shifted, options_for_test(), "label.nii.gz: slice 0 at");
  Volume wider = make_volume({21, 16, 7}, ct_.spacing);
  wider.origin = ct_.origin;
  wider.direction = ct_.direction;
  wider.voxels[0] = 1;
  expect_refused(wider, options_for_test(), "slices of 21 x 16 voxels, the series has 20 x 16");
  Volume coarser = make_label(ct_);
  coarser.spacing[0] = 1.4;
  expect_refused(coarser, options_for_test(), "PixelSpacing");
}

TEST_F(DicomSegExportRefuses, ValuesThatAreNotLabelsAndLabelsWithoutADescription) {
  Volume fractional = make_label(ct_);
  fractional.voxels[5] = 0.5f;
  expect_refused(fractional, options_for_test(), "voxel value 0.5");
  Volume empty = make_label(ct_);
  std::fill(empty.voxels.begin(), empty.voxels.end(), 0.0f);
  expect_refused(empty, options_for_test(), "has no labels");
  DicomSegOptions without_body = options_for_test();
  without_body.segments.erase(without_body.segments.begin() + 2);
  expect_refused(make_label(ct_), without_body, "label 200 of label.nii.gz has no segment description");
  DicomSegOptions backslash = options_for_test();
  backslash.segments[0].name = "liver\\left";
  expect_refused(make_label(ct_), backslash, "segment 1 name");
  DicomSegOptions undescribed = options_for_test();
  undescribed.coding_schemes.erase(undescribed.coding_schemes.begin());
  expect_refused(make_label(ct_), undescribed, "segment 300 type: private coding scheme '99MEDSYNTH' is not described");
}

TEST_F(DicomSegExportRefuses, WritingOverAnExistingFile) {
  std::ofstream(seg_) << "keep me";
  try {
    write_dicom_seg(make_label(ct_), options_for_test(), series_.string(), seg_.string());
    ADD_FAILURE() << "wrote over an existing file";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("never writes over"), std::string::npos) << e.what();
  }
  std::ifstream in(seg_);
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "keep me");
}

}  // namespace
}  // namespace medsynth
