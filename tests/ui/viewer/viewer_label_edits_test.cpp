// Unit tests of the label editor's pure rules (issue 39.2, ui/viewer/label_edits
// and label_map's edited_label_path): the brush is a disc in millimetres on one
// slice, the eraser writes 0, the fill stops at other labels and stays on its
// slice, a stroke is one undo step, undo/redo restore the exact voxels and the
// saved state, and the editor never picks the file a map came from.
#include <QtTest>

#include <cmath>

#include "ui/viewer/label_edits.hpp"
#include "ui/viewer/label_interpolation.hpp"
#include "ui/viewer/label_map.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

std::shared_ptr<Volume> grid(std::array<std::size_t, 3> size, std::array<double, 3> spacing) {
  return std::make_shared<Volume>(make_volume(size, spacing));
}

int count_value(const Volume& v, float value) {
  return static_cast<int>(std::count(v.voxels.begin(), v.voxels.end(), value));
}

}  // namespace

class ViewerLabelEditsTest : public QObject {
  Q_OBJECT

 private slots:
  // On an anisotropic grid a 2 mm brush reaches 2 voxels along x (1 mm) but
  // only 1 along y (2 mm): round in millimetres, on the clicked slice only.
  void the_brush_is_a_disc_in_millimetres_on_one_slice() {
    auto labels = grid({11, 11, 5}, {1.0, 2.0, 3.0});
    LabelEdits edits(labels);
    const auto changed = edits.paint(2, {5, 5, 2}, 2.0, 7.0f);
    // |dx| <= 2 with dy = 0 (5 voxels), |dy| = 1 needs dx^2 + 4 <= 4: dx = 0 (2 voxels).
    QCOMPARE(int(changed.size()), 7);
    QCOMPARE(count_value(*labels, 7.0f), 7);
    QCOMPARE(labels->at(7, 5, 2), 7.0f);
    QCOMPARE(labels->at(8, 5, 2), 0.0f);
    QCOMPARE(labels->at(5, 6, 2), 7.0f);
    QCOMPARE(labels->at(6, 6, 2), 0.0f);
    QCOMPARE(labels->at(5, 5, 1), 0.0f);  // the neighbouring slice is untouched
    QCOMPARE(labels->at(5, 5, 3), 0.0f);
    // Radius 0 paints the clicked voxel; a sagittal slice (normal x) paints y-z.
    QCOMPARE(int(edits.paint(0, {1, 1, 1}, 0.0, 3.0f).size()), 1);
    QCOMPARE(int(edits.paint(0, {0, 5, 2}, 3.0, 4.0f).size()), 5);  // y +-1 (2 mm), z +-1 (3 mm)
    for (std::size_t x = 1; x < 11; ++x) QVERIFY(labels->at(x, 5, 2) != 4.0f || x == 0);
    // Outside the grid nothing changes and nothing is recorded.
    QVERIFY(edits.paint(2, {-1, 5, 2}, 2.0, 9.0f).empty());
    QCOMPARE(count_value(*labels, 9.0f), 0);
  }

  void the_eraser_writes_background_and_reports_only_real_changes() {
    auto labels = grid({9, 9, 3}, {1.0, 1.0, 1.0});
    LabelEdits edits(labels);
    edits.paint(2, {4, 4, 1}, 3.0, 2.0f);
    const int painted = count_value(*labels, 2.0f);
    const auto erased = edits.paint(2, {4, 4, 1}, 1.0, 0.0f);
    QCOMPARE(int(erased.size()), 5);  // the centre and its four neighbours
    QCOMPARE(count_value(*labels, 2.0f), painted - 5);
    QVERIFY(edits.paint(2, {4, 4, 1}, 1.0, 0.0f).empty());  // already background
  }

  // The fill takes the 4-connected region of the clicked label on the clicked
  // slice: a ring of another label stops it, a diagonal gap does not let it
  // through, and the slices above and below keep their values.
  void the_fill_stops_at_other_labels_and_stays_on_its_slice() {
    auto labels = grid({10, 10, 3}, {1.0, 1.0, 1.0});
    for (std::size_t i = 2; i <= 7; ++i)
      for (std::size_t z = 0; z < 3; ++z) {
        labels->at(i, 2, z) = labels->at(i, 7, z) = 5.0f;
        labels->at(2, i, z) = labels->at(7, i, z) = 5.0f;
      }
    LabelEdits edits(labels);
    const auto inside = edits.fill(2, {4, 4, 1}, 3.0f);
    QCOMPARE(int(inside.size()), 16);  // the 4x4 inside of the ring
    QCOMPARE(labels->at(4, 4, 0), 0.0f);
    QCOMPARE(labels->at(4, 4, 2), 0.0f);
    QCOMPARE(labels->at(0, 0, 1), 0.0f);
    // Filling the ring relabels exactly the ring on that slice.
    QCOMPARE(int(edits.fill(2, {2, 2, 1}, 6.0f).size()), 20);
    QCOMPARE(labels->at(2, 2, 0), 5.0f);
    // Filling with the region's own value changes nothing.
    QVERIFY(edits.fill(2, {4, 4, 1}, 3.0f).empty());
  }

  // A stroke (one drag) is one undo step however many stamps it made; undo
  // and redo restore the exact voxels, and modified() follows the saved state.
  void a_stroke_is_one_undo_step_and_undo_redo_restore_the_saved_state() {
    auto labels = grid({12, 12, 2}, {1.0, 1.0, 1.0});
    labels->at(0, 0, 0) = 4.0f;
    const std::vector<float> original = labels->voxels;
    LabelEdits edits(labels);
    QVERIFY(!edits.modified());
    QVERIFY(!edits.can_undo());
    edits.begin_stroke();
    for (std::int64_t x = 2; x <= 9; ++x) edits.paint(2, {x, 5, 0}, 1.0, 1.0f);
    edits.end_stroke();
    const std::vector<float> after_stroke = labels->voxels;
    QVERIFY(edits.modified());
    edits.mark_saved();
    QVERIFY(!edits.modified());
    edits.fill(2, {11, 11, 0}, 2.0f);  // a second step: the background of slice 0
    QVERIFY(edits.modified());

    edits.undo();
    QVERIFY(labels->voxels == after_stroke);
    QVERIFY(!edits.modified());  // back at the saved state
    const auto undone = edits.undo();
    QVERIFY(labels->voxels == original);
    QVERIFY(!undone.empty());
    QVERIFY(edits.modified());
    QVERIFY(!edits.can_undo());
    edits.redo();
    QVERIFY(labels->voxels == after_stroke);
    QVERIFY(!edits.modified());
    QVERIFY(edits.can_redo());
    // A new edit forks the history: the undone fill cannot come back.
    edits.paint(2, {1, 1, 1}, 0.0, 3.0f);
    QVERIFY(!edits.can_redo());
  }

  void the_undo_history_is_bounded() {
    auto labels = grid({80, 80, 1}, {1.0, 1.0, 1.0});
    LabelEdits edits(labels);
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(LabelEdits::k_max_undo_steps) + 10; ++i)
      edits.paint(2, {i % 80, i / 80, 0}, 0.0, 1.0f);
    std::size_t undone = 0;
    while (edits.can_undo()) {
      edits.undo();
      ++undone;
    }
    QCOMPARE(undone, LabelEdits::k_max_undo_steps);
    QCOMPARE(count_value(*labels, 1.0f), 10);  // the oldest ten are kept, as painted
  }

  void the_slice_axis_follows_the_grid_direction() {
    Volume v = make_volume({4, 4, 4});
    QCOMPARE(normal_index_axis(v, {0.0, 0.0, 1.0}), 2);
    QCOMPARE(normal_index_axis(v, {-1.0, 0.0, 0.0}), 0);
    // A grid stored with its axes permuted (index z along world y): a coronal
    // view (world y) edits along index axis 2.
    v.direction = {1, 0, 0, 0, 0, 1, 0, 1, 0};
    QCOMPARE(normal_index_axis(v, {0.0, 1.0, 0.0}), 2);
    QCOMPARE(normal_index_axis(v, {0.0, 0.0, 1.0}), 1);
  }

  void the_editor_never_saves_over_the_file_a_map_came_from() {
    QCOMPARE(edited_label_path("/d/s0_label.nii.gz", "/d/s0_image.nii.gz"),
             QStringLiteral("/d/s0_label-edited.nii.gz"));
    QCOMPARE(edited_label_path("/d/mask.nrrd", "/d/ct.nii"), QStringLiteral("/d/mask-edited.nii.gz"));
    QCOMPARE(edited_label_path("/d/mask-edited.nii.gz", "/d/ct.nii"), QStringLiteral("/d/mask-edited.nii.gz"));
    QCOMPARE(edited_label_path({}, "/d/ct.nii.gz"), QStringLiteral("/d/ct-painted_label.nii.gz"));
    QCOMPARE(edited_label_path("/d/ct-painted_label.nii.gz", "/d/ct.nii.gz"),
             QStringLiteral("/d/ct-painted_label.nii.gz"));
    QVERIFY(edited_label_path({}, {}).isEmpty());
  }

  // Issue 55: the 3D brush is a ball in millimetres. On a 1 x 1 x 2 mm grid
  // an 8 mm ball holds every voxel centre within 8 mm and no other, and its
  // volume is the sphere's within its discretisation (a few percent at 8
  // voxels of radius); one call is one undo step.
  void the_sphere_brush_is_a_ball_in_millimetres() {
    auto labels = grid({24, 24, 12}, {1.0, 1.0, 2.0});
    LabelEdits edits(labels);
    const LabelVoxel c{12, 12, 6};
    const auto changed = edits.paint_sphere(c, 8.0, 3.0f);
    int inside = 0;
    for (std::size_t z = 0; z < 12; ++z)
      for (std::size_t y = 0; y < 24; ++y)
        for (std::size_t x = 0; x < 24; ++x) {
          const double d = std::hypot(double(x) - 12.0, double(y) - 12.0, 2.0 * (double(z) - 6.0));
          QCOMPARE(labels->at(x, y, z) == 3.0f, d <= 8.0);
          inside += d <= 8.0;
        }
    QCOMPARE(int(changed.size()), inside);
    const double volume = 2.0 * inside, sphere = 4.0 / 3.0 * M_PI * 512.0;
    QVERIFY2(std::fabs(volume - sphere) / sphere < 0.05, qPrintable(QString::number(volume / sphere)));
    QCOMPARE(labels->at(12, 12, 10), 3.0f);  // 8 mm along z: 4 slices
    QCOMPARE(labels->at(12, 12, 11), 0.0f);
    QVERIFY(edits.can_undo());
    edits.undo();
    QCOMPARE(count_value(*labels, 3.0f), 0);
  }

  // Fill between slices on known shapes: a disc of 10 mm on slice 0 and a
  // concentric disc of 4 mm on slice 12 give the cone between them, each
  // slice a disc whose radius shrinks linearly (within a voxel of the
  // cone's), nothing outside it, other labels kept, and one undo step.
  void fill_between_slices_interpolates_two_discs_into_their_cone() {
    auto labels = grid({32, 32, 13}, {1.0, 1.0, 1.0});
    LabelEdits edits(labels);
    edits.paint(2, {16, 16, 0}, 10.0, 5.0f);
    edits.paint(2, {16, 16, 12}, 4.0, 5.0f);
    labels->at(16, 16, 6) = 9.0f;  // another label at the cone's axis is kept
    const auto disc_count = [](double r) {
      int n = 0;
      for (int y = -16; y < 16; ++y)
        for (int x = -16; x < 16; ++x) n += x * x + y * y <= r * r;
      return n;
    };
    const auto changed = edits.fill_between_slices(2, 5.0f);
    QVERIFY(!changed.empty());
    int previous = disc_count(10.0) + 1;
    for (std::size_t z = 1; z < 12; ++z) {
      const double r = 10.0 - 6.0 * double(z) / 12.0;
      int n = 0;
      for (std::size_t y = 0; y < 32; ++y)
        for (std::size_t x = 0; x < 32; ++x) {
          if (labels->at(x, y, z) != 5.0f) continue;
          ++n;
          const double d = std::hypot(double(x) - 16.0, double(y) - 16.0);
          QVERIFY2(d <= r + 1.0, qPrintable(QStringLiteral("slice %1: voxel at %2 mm, cone %3").arg(z).arg(d).arg(r)));
        }
      if (z == 6) ++n;  // the other label's voxel
      QVERIFY2(n >= disc_count(r - 1.0) && n <= disc_count(r + 1.0),
               qPrintable(QStringLiteral("slice %1: %2").arg(z).arg(n)));
      QVERIFY(n <= previous);
      previous = n;
    }
    QCOMPARE(labels->at(16, 16, 6), 9.0f);
    edits.undo();
    for (std::size_t z = 1; z < 12; ++z) QCOMPARE(labels->at(16, 16, z), z == 6 ? 9.0f : 0.0f);
    QCOMPARE(labels->at(16, 16, 0), 5.0f);  // the painted slices are the stroke before
  }

  // The distance map is exact Euclidean in millimetres on anisotropic pixels.
  void the_distance_map_is_euclidean_in_millimetres() {
    const SliceGrid g{7, 5, 1.0, 2.0};
    std::vector<char> mask(g.count(), 0);
    mask[2 * 7 + 3] = 1;  // pixel (3, 2)
    const auto d = distance_to_mask(mask, g);
    for (std::size_t y = 0; y < 5; ++y)
      for (std::size_t x = 0; x < 7; ++x)
        QVERIFY(std::fabs(d[y * 7 + x] - std::hypot(double(x) - 3.0, 2.0 * (double(y) - 2.0))) < 1e-9);
  }

  void a_null_or_inconsistent_map_is_refused() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LabelEdits{nullptr});
    auto bad = grid({2, 2, 2}, {1.0, 1.0, 1.0});
    bad->voxels.pop_back();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LabelEdits{bad});
  }
};

QTEST_MAIN(ViewerLabelEditsTest)
#include "viewer_label_edits_test.moc"
