// Issue 39 item 1: a segmentation made ready for MAISI's image-from-mask
// generation. A TotalSegmentator-style map written here (its v2 "total"
// label ids) becomes MAISI CT's classes with the body envelope; VISTA3D's
// classes that MAISI CT lacks, and labels no table knows, are dropped with a
// warning naming them; a user's map is checked entry by entry; the envelope
// follows the CT when one is given; the grid is resampled and checked against
// NV-Generate's CT table; and the verb writes the map and never overwrites one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "data/ct_phantom.hpp"
#include "data/label_preparation.hpp"
#include "data/label_vocabulary.hpp"
#include "support/child_process.hpp"
#include "support/oversized_json.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

constexpr std::size_t k_n = 48, k_slices = 6;

void fill_box(Volume& v, std::size_t x0, std::size_t x1, std::size_t y0, std::size_t y1, float value) {
  for (std::size_t z = 0; z < v.size[2]; ++z)
    for (std::size_t y = y0; y < y1; ++y)
      for (std::size_t x = x0; x < x1; ++x) v.at(x, y, z) = value;
}

// TotalSegmentator v2 ids: 5 liver, 1 spleen, 2 kidney_right, 21
// urinary_bladder; 150: no such class. Organs apart, with gaps between them.
Volume totalsegmentator_fixture() {
  Volume v = make_volume({k_n, k_n, k_slices}, {1.5, 1.5, 3.0});
  fill_box(v, 8, 20, 10, 22, 5.0f);
  fill_box(v, 28, 38, 10, 18, 1.0f);
  fill_box(v, 10, 16, 30, 38, 2.0f);
  fill_box(v, 30, 38, 30, 38, 21.0f);
  fill_box(v, 22, 24, 24, 26, 150.0f);
  return v;
}

std::map<int, std::int64_t> counts(const Volume& v) {
  std::map<int, std::int64_t> out;
  for (float x : v.voxels) ++out[static_cast<int>(x)];
  return out;
}

bool warned(const PreparedLabel& p, const std::string& text) {
  for (const auto& w : p.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(LabelPreparation, TotalSegmentatorLabelsBecomeMaisiClassesWithTheBodyEnvelope) {
  const Volume seg = totalsegmentator_fixture();
  const PreparedLabel p = prepare_label(seg, "seg.nii.gz", {.from = "totalsegmentator"});
  const auto c = counts(p.label);
  const auto before = counts(seg);
  // liver 1, spleen 3, right kidney 5, bladder 15: every voxel moved over.
  EXPECT_EQ(c.at(1), before.at(5));
  EXPECT_EQ(c.at(3), before.at(1));
  EXPECT_EQ(c.at(5), before.at(2));
  EXPECT_EQ(c.at(15), before.at(21));
  EXPECT_EQ(maisi_ct_classes().at(15), "bladder");
  // Label 150 is in no table: dropped, and said.
  EXPECT_EQ(p.dropped.at(150), before.at(150));
  EXPECT_TRUE(warned(p, "label 150")) << "no warning names the unknown label";
  // The envelope: the gap between the organs is body, the corner is air.
  EXPECT_FALSE(p.envelope.empty());
  EXPECT_EQ(p.label.at(24, 20, 2), static_cast<float>(k_maisi_body_label));
  EXPECT_EQ(p.label.at(22, 24, 2), static_cast<float>(k_maisi_body_label)) << "where label 150 was";
  EXPECT_EQ(p.label.at(1, 1, 2), 0.0f);
  EXPECT_EQ(p.label.at(46, 46, 2), 0.0f);
  // A map that has the envelope keeps it as it is.
  const PreparedLabel again = prepare_label(p.label, "prepared.nii.gz", {.from = "vista3d"});
  EXPECT_TRUE(again.envelope.empty());
  EXPECT_EQ(counts(again.label).at(k_maisi_body_label), c.at(k_maisi_body_label));
}

TEST(LabelPreparation, TheEnvelopeFollowsTheCtWhenOneIsGiven) {
  const Volume seg = totalsegmentator_fixture();
  Volume ct = make_volume(seg.size, seg.spacing);
  std::fill(ct.voxels.begin(), ct.voxels.end(), -1000.0f);
  fill_box(ct, 4, 44, 4, 44, 40.0f);      // the body: wider than the organs' hull
  fill_box(ct, 22, 26, 22, 26, -900.0f);  // air inside (a lung, the bowel): still body
  const PreparedLabel p = prepare_label(seg, "seg.nii.gz", {.from = "totalsegmentator"}, &ct);
  EXPECT_NE(p.envelope.find("CT image"), std::string::npos) << p.envelope;
  EXPECT_EQ(p.label.at(5, 5, 0), static_cast<float>(k_maisi_body_label)) << "outside the organs' hull, inside the body";
  EXPECT_EQ(p.label.at(24, 24, 0), static_cast<float>(k_maisi_body_label)) << "the air pocket is filled";
  EXPECT_EQ(p.label.at(2, 2, 0), 0.0f);
  EXPECT_EQ(p.label.at(10, 12, 0), 1.0f) << "organs keep their class";
  Volume other = make_volume({10, 10, 2}, {1, 1, 1});
  EXPECT_THROW(prepare_label(seg, "seg.nii.gz", {.from = "totalsegmentator"}, &other), DataError);
}

TEST(LabelPreparation, Vista3dClassesMaisiCtLacksAreDroppedByName) {
  Volume seg = make_volume({8, 8, 2}, {1, 1, 1});
  fill_box(seg, 0, 4, 0, 8, 1.0f);   // liver: MAISI's 1 too
  fill_box(seg, 4, 8, 0, 8, 20.0f);  // lung: VISTA3D's, not a MAISI CT class
  const PreparedLabel p = prepare_label(seg, "vista.nii.gz", {.from = "vista3d"});
  EXPECT_EQ(counts(p.label).at(1), 64);
  EXPECT_EQ(p.dropped.at(20), 64);
  EXPECT_TRUE(warned(p, "label 20 (lung")) << "the warning names the class";
}

TEST(LabelPreparation, AUsersMapIsCheckedEntryByEntry) {
  test::TempDir dir("label-map");
  const std::string good = (dir / "map.json").string(), bad = (dir / "bad.json").string();
  std::ofstream(good) << R"({"7": "liver", "8": 3, "9": 0})";
  std::ofstream(bad) << R"({"7": "lver"})";
  Volume seg = make_volume({4, 4, 1}, {1, 1, 1});
  seg.at(0, 0, 0) = 7;
  seg.at(1, 0, 0) = 8;
  seg.at(2, 0, 0) = 9;
  const PreparedLabel p = prepare_label(seg, "seg", {.from = good});
  EXPECT_EQ(p.label.at(0, 0, 0), 1.0f);
  EXPECT_EQ(p.label.at(1, 0, 0), 3.0f);
  EXPECT_EQ(p.dropped.at(9), 1);
  try {
    prepare_label(seg, "seg", {.from = bad});
    FAIL() << "an unknown class name was accepted";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(bad + ": entry \"7\": 'lver' is not a MAISI CT class"), std::string::npos)
        << e.what();
  }
  seg.at(3, 0, 0) = 2.5f;
  EXPECT_THROW(prepare_label(seg, "seg", {.from = good}), DataError);
}

TEST(LabelPreparation, TheGridIsResampledAndCheckedAgainstNvGeneratesCtTable) {
  const Volume seg = totalsegmentator_fixture();
  const PreparedLabel p = prepare_label(seg, "seg.nii.gz",
                                        {.from = "totalsegmentator",
                                         .spacing = std::array<double, 3>{0.75, 0.75, 1.5},
                                         .size = std::array<std::size_t, 3>{256, 256, 128}});
  EXPECT_EQ(p.label.size, (std::array<std::size_t, 3>{256, 256, 128}));
  EXPECT_EQ(p.label.spacing, (std::array<double, 3>{0.75, 0.75, 1.5}));
  for (int cls : {1, 3, 5, 15, k_maisi_body_label}) EXPECT_GT(p.classes.count(cls), 0u) << cls;
  EXPECT_TRUE(warned(p, "x field of view 192 mm is under 256 mm")) << "256 x 0.75 mm is too small a FOV";
  EXPECT_TRUE(maisi_ct_grid_warnings({512, 512, 128}, {0.8, 0.8, 2.5}).empty());
  const auto w = maisi_ct_grid_warnings({300, 300, 100}, {0.4, 0.4, 6.0});
  const auto has = [&w](const std::string& text) {
    for (const auto& line : w)
      if (line.find(text) != std::string::npos) return true;
    return false;
  };
  for (const char* text : {"x size 300", "z size 100", "z spacing 6 mm", "y spacing 0.4 mm"})
    EXPECT_TRUE(has(text)) << text << " is not among the warnings";
}

// Issue 50 item 8: a label map over the byte cap of a map (4 MiB) is
// refused before it is parsed, naming it and its size.
TEST(LabelPreparation, AUsersMapOverTheByteCapIsRefusedBeforeParsing) {
  test::TempDir dir("label-map-cap");
  const auto map = dir / "map.json";
  test::expect_refused_one_byte_over_the_cap(map, R"({"7": "liver"})", k_document_json_cap.bytes, [&] {
    prepare_label(make_volume({4, 4, 1}, {1, 1, 1}), "seg", {.from = map.string()});
  });
}

// Issue 50 item 8: a 24^3 map of 1e6 mm voxels resampled to 1 mm asked for
// 55 GB and died of bad_alloc. The resampled grid is held to the voxel cap of
// reading, before anything is allocated: exit 3, naming the file.
TEST(LabelPreparation, AResampledGridOverTheVoxelCapIsRefusedBeforeAllocating) {
  const Volume huge_voxels = make_volume({24, 24, 24}, {1e6, 1e6, 1e6});
  try {
    prepare_label(huge_voxels, "seg.nii.gz", {.from = "totalsegmentator", .spacing = std::array<double, 3>{1, 1, 1}});
    FAIL() << "a 2.4e7-voxel-long grid was made";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), "seg.nii.gz");
    EXPECT_NE(e.reason().find("resampling its 1e+06x1e+06x1e+06 mm voxels to 1x1x1 mm would make"), std::string::npos)
        << e.what();
  }
  // Along one axis only, the grid after that axis is already over the cap.
  const Volume tall = make_volume({512, 512, 4}, {1, 1, 1000});
  EXPECT_THROW(
      prepare_label(tall, "tall.nii.gz", {.from = "totalsegmentator", .spacing = std::array<double, 3>{1, 1, 1}}),
      DataError);

  test::TempDir dir("prepare-label-cap");
  const std::string seg = (dir / "seg.nii.gz").string(), out = (dir / "out.nii.gz").string();
  write_volume(huge_voxels, seg);
  const auto r = test::run_process({test::engine_binary(), "prepare-label", seg, "--from", "totalsegmentator",
                                    "--spacing", "1", "1", "1", "--out", out},
                                   dir.path().string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(seg + ": resampling its"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("over the cap of 268435456"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(LabelPreparation, TheVerbWritesTheMapAndNeverReplacesAFile) {
  test::TempDir dir("prepare-label-cli");
  const std::string seg = (dir / "seg.nii.gz").string(), out = (dir / "maisi_label.nii.gz").string();
  write_volume(totalsegmentator_fixture(), seg);
  const auto r = test::run_process(
      {test::engine_binary(), "prepare-label", seg, "--from", "totalsegmentator", "--out", out}, dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 liver: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("body envelope (200) added"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("prepare-label: warning: label 150"), std::string::npos) << r.err;
  EXPECT_EQ(counts(read_volume(out)).count(k_maisi_body_label), 1u);
  const auto size = fs::file_size(out);
  const auto again = test::run_process({test::engine_binary(), "prepare-label", seg, "--from", "vista3d", "--out", out},
                                       dir.path().string());
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("--out: " + out + " exists"), std::string::npos) << again.err;
  EXPECT_EQ(fs::file_size(out), size);
}

// Issue 54 item 2: every clinical CT has a table under the patient. The
// envelope (HU > -500) made all of a table slab 2 voxels below the body
// label 200, and the ControlNet was then told to paint tissue there. The
// table is removed as NV-Generate removes it; the body stays body.
namespace {

struct PhantomOnTable {
  Volume ct, segmentation;
  std::vector<std::size_t> table;  // voxel indices of the slab
  std::size_t body_bottom = 0;     // the largest y of a body voxel
};

// `gap`: voxels of air between the body's lowest voxel and the slab.
PhantomOnTable phantom_on_table(std::size_t gap) {
  PhantomOnTable p;
  p.ct = make_ct_phantom(7, {.size = {48, 48, 8}, .spacing = {8.0, 8.0, 8.0}, .noise_hu = 0.0});
  for (std::size_t z = 0; z < p.ct.size[2]; ++z)
    for (std::size_t y = 0; y < p.ct.size[1]; ++y)
      for (std::size_t x = 0; x < p.ct.size[0]; ++x)
        if (p.ct.at(x, y, z) > -500.0f) p.body_bottom = std::max(p.body_bottom, y);
  // A slab 3 voxels thick under the body, as wide as the field of view.
  for (std::size_t z = 0; z < p.ct.size[2]; ++z)
    for (std::size_t y = p.body_bottom + 1 + gap; y < p.body_bottom + 4 + gap; ++y)
      for (std::size_t x = 2; x < p.ct.size[0] - 2; ++x) {
        p.ct.at(x, y, z) = 200.0f;
        p.table.push_back(p.ct.index(x, y, z));
      }
  p.segmentation = make_volume(p.ct.size, p.ct.spacing);
  fill_box(p.segmentation, 20, 28, 20, 28, 5.0f);  // a liver in the middle of the body
  return p;
}

void expect_table_removed(const PhantomOnTable& p, const Volume& label) {
  std::size_t table_as_body = 0;
  for (std::size_t i : p.table) table_as_body += label.voxels[i] == static_cast<float>(k_maisi_body_label);
  EXPECT_EQ(table_as_body, 0u) << "of the table's " << p.table.size() << " voxels";
  std::size_t body = 0, body_in_ct = 0;
  for (std::size_t i = 0; i < p.ct.voxels.size(); ++i) {
    if (std::find(p.table.begin(), p.table.end(), i) != p.table.end() || p.ct.voxels[i] <= -500.0f) continue;
    ++body_in_ct;
    body += label.voxels[i] == static_cast<float>(k_maisi_body_label) || label.voxels[i] == 1.0f;
  }
  // The opening loses at most the body's sharpest edges (2 %: where a 5 x 5 square does not fit).
  EXPECT_GE(body, body_in_ct * 98 / 100) << "of the body's " << body_in_ct << " voxels are body (or its liver)";
  EXPECT_EQ(label.at(24, 24, 4), 1.0f) << "the liver keeps its class";
  EXPECT_EQ(label.at(24, p.body_bottom + 2, 4), 0.0f) << "the air between body and table";
}

}  // namespace

TEST(LabelPreparation, TheCtTableIsNotBody) {
  const PhantomOnTable p = phantom_on_table(2);
  ASSERT_LT(p.body_bottom + 6, p.ct.size[1]) << "the phantom leaves no room for a table";
  const PreparedLabel prepared = prepare_label(p.segmentation, "seg.nii.gz", {.from = "totalsegmentator"}, &p.ct);
  EXPECT_NE(prepared.envelope.find("table"), std::string::npos) << prepared.envelope;
  expect_table_removed(p, prepared.label);

  // A table that touches the body (no air between them) is cut off, but for
  // the strip within 4 voxels of the body where they touch (13 % here;
  // before, all of it was body).
  const PhantomOnTable touching = phantom_on_table(0);
  const PreparedLabel glued =
      prepare_label(touching.segmentation, "seg.nii.gz", {.from = "totalsegmentator"}, &touching.ct);
  std::size_t table_as_body = 0;
  for (std::size_t i : touching.table) table_as_body += glued.label.voxels[i] == static_cast<float>(k_maisi_body_label);
  EXPECT_LT(table_as_body, touching.table.size() / 5) << "of the touching table's " << touching.table.size();

  // The verb, on real NIfTI files.
  test::TempDir dir("prepare-label-table");
  const std::string seg = (dir / "seg.nii.gz").string(), ct = (dir / "ct.nii.gz").string(),
                    out = (dir / "label.nii.gz").string();
  write_volume(p.segmentation, seg);
  write_volume(p.ct, ct);
  const auto r = test::run_process(
      {test::engine_binary(), "prepare-label", seg, "--from", "totalsegmentator", "--image", ct, "--out", out},
      dir.path().string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("table"), std::string::npos) << r.out;
  expect_table_removed(p, read_volume(out));
}

// Issue 50 item 10: `prepare-label X --out X --overwrite` replaced the
// segmentation with its own remapping. An input is never replaced, under
// any name that reaches it.
TEST(LabelPreparation, TheVerbNeverReplacesItsOwnInputEvenWithOverwrite) {
  test::TempDir dir("prepare-label-self");
  const std::string seg = (dir / "seg.nii.gz").string();
  write_volume(totalsegmentator_fixture(), seg);
  const std::string before = test::read_bytes(seg);
  for (const std::string& out : {seg, (dir / "." / "seg.nii.gz").string()}) {
    const auto r = test::run_process(
        {test::engine_binary(), "prepare-label", seg, "--from", "totalsegmentator", "--out", out, "--overwrite"},
        dir.path().string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--out: " + out + " is the segmentation this reads; it is never replaced"), std::string::npos)
        << r.err;
  }
  EXPECT_EQ(test::read_bytes(seg), before);
}
