// Unit tests (no display) of the viewer's geometry: index <-> LPS mapping
// with anisotropic spacing and an oblique direction, the value under a world
// point, the radiological view axes and labels, display <-> world of a slice
// view, the scale bar, camera comparison and A - B differences.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <QtTest>

#include "ui/viewer/camera_state.hpp"
#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/volume_difference.hpp"
#include "ui/viewer/volume_geometry.hpp"
#include "viewer_test_volumes.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {
bool near(const Vec3& a, const Vec3& b, double tol = 1e-9) {
  return std::abs(a[0] - b[0]) <= tol && std::abs(a[1] - b[1]) <= tol && std::abs(a[2] - b[2]) <= tol;
}
QString str(const Vec3& v) { return QStringLiteral("(%1, %2, %3)").arg(v[0]).arg(v[1]).arg(v[2]); }
}  // namespace

class ViewerGeometryTest : public QObject {
  Q_OBJECT

 private slots:
  void index_to_world_follows_itk() {
    const Volume v = vt::ramp_volume();
    const VolumeGeometry g(v);
    // Voxel (1, 0, 0) is one x-spacing along the first direction column.
    const Vec3 w = g.index_to_world({1, 0, 0});
    const double a = 30.0 * M_PI / 180.0;
    QVERIFY2(near(w, {-10.0 + 0.8 * std::cos(a), 5.0 + 0.8 * std::sin(a), 20.0}), qPrintable(str(w)));
    const Vec3 w2 = g.index_to_world({0, 2, 3});
    QVERIFY(near(w2, {-10.0 - 2.4 * std::sin(a), 5.0 + 2.4 * std::cos(a), 27.5}));
    for (const Vec3 index : {Vec3{0, 0, 0}, Vec3{3.25, 7.5, 11.0}, Vec3{-1, 30, 2}}) {
      QVERIFY(near(g.world_to_index(g.index_to_world(index)), index, 1e-9));
    }
  }

  void probe_returns_the_voxel_nearest_to_a_world_point() {
    const Volume v = vt::ramp_volume();
    const VolumeGeometry g(v);
    for (const Index3 index : {Index3{0, 0, 0}, Index3{23, 19, 15}, Index3{7, 11, 4}}) {
      // Anywhere within the voxel (less than half a spacing from its centre).
      const Vec3 offset{0.39, -0.59, 1.2};
      const Vec3 w = g.index_to_world(
          {index[0] + offset[0] / 0.8, index[1] + offset[1] / 1.2, index[2] + offset[2] / 2.5});
      const VoxelProbe p = probe_voxel(v, g, w);
      QVERIFY(p.inside);
      QCOMPARE(p.index, index);
      QCOMPARE(p.value, vt::ramp_value(index[0], index[1], index[2]));
      QVERIFY(near(p.world, w));
    }
    const VoxelProbe outside = probe_voxel(v, g, g.index_to_world({-0.6, 3, 3}));
    QVERIFY(!outside.inside);
    QCOMPARE(outside.index[0], std::int64_t{-1});
    QVERIFY(!probe_voxel(v, g, g.index_to_world({3, 3, 15.6})).inside);
    QVERIFY(probe_voxel(v, g, g.index_to_world({3, 3, 15.4})).inside);
    // Far away points neither overflow nor crash.
    QVERIFY(!probe_voxel(v, g, {1e300, -1e300, 1e30}).inside);
  }

  void bounds_step_and_validation() {
    Volume v = make_volume({10, 20, 5}, {2.0, 1.0, 3.0});
    v.origin = {100, 200, 300};
    const VolumeGeometry g(v);
    const auto b = g.world_bounds();
    QCOMPARE(b[0], 99.0);   // half a voxel before the first centre
    QCOMPARE(b[1], 119.0);  // 100 + 9*2 + 1
    QCOMPARE(b[4], 298.5);
    QCOMPARE(b[5], 313.5);
    QCOMPARE(g.slice_step({0, 0, 1}), 3.0);
    QCOMPARE(g.slice_step({1, 0, 0}), 2.0);
    QCOMPARE(g.center(), (Vec3{110, 210, 306}));
    QCOMPARE(g.clamp({-4, 25, 2}), (Index3{0, 19, 2}));
    Volume bad = v;
    bad.spacing = {1, 0, 1};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, VolumeGeometry{bad});
    bad = v;
    bad.direction = {1, 0, 0, 1, 0, 0, 0, 0, 1};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, VolumeGeometry{bad});
  }

  void view_axes_are_radiological_and_right_handed() {
    for (SliceOrientation o : {SliceOrientation::axial, SliceOrientation::coronal, SliceOrientation::sagittal}) {
      const ViewAxes a = view_axes(o);
      QVERIFY(near(cross(a.projection, a.up), a.right));  // VTK's camera convention
      QCOMPARE(dot(a.right, a.up), 0.0);
    }
    const auto axial = orientation_labels(view_axes(SliceOrientation::axial));
    QCOMPARE(axial.left, QStringLiteral("R"));  // patient right on screen left
    QCOMPARE(axial.right, QStringLiteral("L"));
    QCOMPARE(axial.top, QStringLiteral("A"));  // anterior up
    QCOMPARE(axial.bottom, QStringLiteral("P"));
    const auto coronal = orientation_labels(view_axes(SliceOrientation::coronal));
    QCOMPARE(coronal.left + coronal.right + coronal.top + coronal.bottom, QStringLiteral("RLSI"));
    const auto sagittal = orientation_labels(view_axes(SliceOrientation::sagittal));
    QCOMPARE(sagittal.left + sagittal.right + sagittal.top + sagittal.bottom, QStringLiteral("APSI"));
    QCOMPARE(orientation_letter({0.2, -0.9, 0.3}), QStringLiteral("A"));
    QCOMPARE(orientation_letter({-0.7, 0.1, 0.3}), QStringLiteral("R"));
    QCOMPARE(orientation_letter({0.0, 0.1, -0.3}), QStringLiteral("I"));
  }

  void display_to_world_of_a_slice_view() {
    SliceCamera cam;
    cam.axes = view_axes(SliceOrientation::axial);
    cam.focal = {10, 20, 30};
    cam.parallel_scale = 50.0;  // 100 mm over 200 px: 0.5 mm/px
    cam.width = 300;
    cam.height = 200;
    QCOMPARE(cam.mm_per_pixel(), 0.5);
    // The pixel right of and below the centre: 0.25 mm to the patient's left and posterior.
    QVERIFY(near(cam.display_to_world({150, 100}), {10.25, 20.25, 30}));
    // Top-left pixel: patient right (-x) and anterior (-y).
    QVERIFY(near(cam.display_to_world({0, 0}), {10 - 74.75, 20 - 49.75, 30}));
    // Any position inside a pixel maps to its centre.
    QVERIFY(near(cam.display_to_world({150.9, 100.2}), cam.display_to_world({150, 100})));
    const QPointF back = cam.world_to_display(cam.display_to_world({37, 81}));
    QCOMPARE(back, QPointF(37.5, 81.5));
    SliceCamera sag = cam;
    sag.axes = view_axes(SliceOrientation::sagittal);
    // Screen right is posterior (+y), screen up superior (+z); x stays the focal's.
    QVERIFY(near(sag.display_to_world({199, 99}), {10, 20 + 24.75, 30 + 0.25}));
  }

  void scale_bar_lengths_are_round() {
    QCOMPARE(nice_scale_bar_length(0.5, 100), 50.0);
    QCOMPARE(nice_scale_bar_length(0.37, 100), 20.0);
    QCOMPARE(nice_scale_bar_length(1.0, 7.0), 5.0);
    QCOMPARE(nice_scale_bar_length(0.011, 100), 1.0);
    QCOMPARE(nice_scale_bar_length(0.0, 100), 0.0);
    QCOMPARE(nice_scale_bar_length(std::numeric_limits<double>::infinity(), 100), 0.0);
    for (double mpp : {0.013, 0.27, 1.9, 7.3})
      QVERIFY(nice_scale_bar_length(mpp, 120) <= mpp * 120 + 1e-9);
  }

  void cameras_compare_with_tolerance() {
    CameraState a;
    a.position = {0, -500, 0};
    CameraState b = a;
    b.position[0] += 1e-9;
    QVERIFY(nearly_equal(a, b));
    b.position[0] += 1.0;
    QVERIFY(!nearly_equal(a, b));
    b = a;
    b.parallel = true;
    QVERIFY(!nearly_equal(a, b));
  }

  void difference_on_the_same_grid() {
    const Volume a = vt::ramp_volume();
    Volume b = a;
    for (std::size_t i = 0; i < b.voxels.size(); ++i) b.voxels[i] = a.voxels[i] * 0.5f + 3.0f;
    b.voxels[5] = std::numeric_limits<float>::quiet_NaN();
    const DifferenceResult d = difference_volume(a, b);
    QVERIFY2(d.volume != nullptr, qPrintable(d.error));
    QCOMPARE(d.volume->size, a.size);
    QCOMPARE(d.volume->direction, a.direction);
    QCOMPARE(d.volume->at(3, 4, 5), a.at(3, 4, 5) - b.at(3, 4, 5));
    QVERIFY(std::isnan(d.volume->voxels[5]));
    const float largest = a.voxels.back() * 0.5f - 3.0f;
    QCOMPARE(static_cast<float>(d.max_abs), largest);
  }

  void difference_explains_mismatched_grids() {
    const Volume a = vt::ramp_volume();
    Volume b = a;
    b.size = {24, 20, 15};
    b.voxels.resize(b.voxel_count());
    DifferenceResult d = difference_volume(a, b);
    QVERIFY(d.volume == nullptr);
    QCOMPARE(d.error, QStringLiteral("size differs: 24x20x16 vs 24x20x15"));
    b = a;
    b.spacing[2] = 2.0;
    QVERIFY(difference_volume(a, b).error.startsWith(QLatin1String("spacing differs")));
    b = a;
    b.origin[1] += 0.5;
    QVERIFY(difference_volume(a, b).error.startsWith(QLatin1String("origin differs")));
    b = a;
    b.direction = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    QVERIFY(difference_volume(a, b).error.startsWith(QLatin1String("direction differs")));
    b = a;
    b.origin[0] += 1e-5;  // below the tolerance: ITK round-off
    QVERIFY(difference_volume(a, b).volume != nullptr);
  }
};

QTEST_GUILESS_MAIN(ViewerGeometryTest)
#include "viewer_geometry_test.moc"
