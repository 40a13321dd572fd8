// GUI tests of the volume viewer under Xvfb (xcb platform, Mesa llvmpipe):
// VtkOpenGLWidget rendering, slice orientation, the value under the cursor,
// window/level, the crosshair, drag-and-drop, bad files, CompareWidget and
// SamplesPanel. Volumes are real NIfTI files written by medsynth_volume.
#include <algorithm>
#include <limits>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QDir>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkRendererCollection.h>

#include "app/runs/run_model.hpp"
#include "contract/generation_provenance.hpp"
#include "volume/nifti_extension.hpp"
#include "itk_fixtures.hpp"
#include "ui/viewer/slice_scene.hpp"
#include "ui/viewer/compare_widget.hpp"
#include "ui/viewer/gl_renderer_info.hpp"
#include "ui/viewer/samples_panel.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/viewer_toolbar.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "viewer_test_volumes.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {

constexpr int k_timeout_ms = 30000;  // llvmpipe on 2 shared cores: first frames can be slow

// Renders the view now and returns the frame (device pixels).
QImage frame_of(VtkOpenGLWidget* view) { return view->grab_frame(); }

bool wait_for_load(QSignalSpy& loaded, QSignalSpy& failed) {
  return QTest::qWaitFor([&] { return loaded.count() + failed.count() > 0; }, k_timeout_ms);
}

void send_mouse(QWidget* widget, QEvent::Type type, Qt::MouseButton button, Qt::MouseButtons buttons,
                const QPointF& position, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
  QMouseEvent event(type, position, widget->mapToGlobal(position), button, buttons, modifiers);
  QApplication::sendEvent(widget, &event);
}

void send_wheel(QWidget* widget, const QPointF& position, int delta, Qt::KeyboardModifiers modifiers = {}) {
  QWheelEvent event(position, widget->mapToGlobal(position), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(widget, &event);
}

const std::array<SliceOrientation, 3> k_orientations{SliceOrientation::axial, SliceOrientation::coronal,
                                                     SliceOrientation::sagittal};

}  // namespace

class ViewerWidgetTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString ramp_path_, ct_path_, marker_path_, truncated_path_, garbage_path_;

  QString path(const QString& name) const { return dir_.filePath(name); }

  // A shown viewer, sized so that every view is a few hundred pixels.
  std::unique_ptr<VolumeViewerWidget> make_viewer(ViewerOptions options = {}) {
    auto viewer = std::make_unique<VolumeViewerWidget>(nullptr, options);
    viewer->resize(900, 800);
    viewer->show();
    if (!QTest::qWaitForWindowExposed(viewer.get())) return nullptr;
    return viewer;
  }

  void open_and_wait(VolumeViewerWidget* viewer, const QString& file) {
    QSignalSpy loaded(viewer, &VolumeViewerWidget::volume_loaded);
    QSignalSpy failed(viewer, &VolumeViewerWidget::load_failed);
    viewer->open_volume(file);
    QVERIFY(wait_for_load(loaded, failed));
    QVERIFY2(failed.isEmpty(), qPrintable(viewer->error_text()));
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
      QSKIP("QOpenGLWidget needs a GL platform: run under xvfb-run with QT_QPA_PLATFORM=xcb");
    ramp_path_ = vt::write_nifti(vt::ramp_volume(), path(QStringLiteral("ramp.nii.gz")));
    ct_path_ = vt::write_nifti(vt::ct_phantom(), path(QStringLiteral("ct.nii.gz")));
    marker_path_ = vt::write_nifti(vt::marker_volume(), path(QStringLiteral("marker.nii")));
    truncated_path_ = vt::write_truncated_copy(ct_path_, path(QStringLiteral("truncated.nii.gz")));
    garbage_path_ = vt::write_garbage(path(QStringLiteral("garbage.nii")));
    QVERIFY(!truncated_path_.isEmpty() && !garbage_path_.isEmpty());
  }

  void renders_slices_and_a_volume_that_are_not_blank() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    QVERIFY(viewer->has_volume());
    QCOMPARE(viewer->volume()->size, (std::array<std::size_t, 3>{48, 48, 32}));
    for (SliceOrientation o : {SliceOrientation::axial, SliceOrientation::coronal, SliceOrientation::sagittal}) {
      const QImage frame = frame_of(viewer->slice_view(o));
      QVERIFY(!frame.isNull());
      QVERIFY2(vt::image_stddev(frame) > 20.0, qPrintable(orientation_name(o)));
    }
    VolumeRenderView* view3d = viewer->volume_view();
    const QImage rendering = frame_of(view3d);
    QVERIFY2(vt::image_stddev(rendering) > 10.0, "the 3D view is blank");
    // CPU ray casting exactly when the GL renderer is a software one.
    QCOMPARE(view3d->software_ray_casting(), is_software_gl_renderer(view3d->gl_renderer()));
    QVERIFY(!gl_renderer_string().isEmpty());
    QVERIFY(viewer->save_screenshot(vt::test_output_dir() + QStringLiteral("/viewer-ct.png")));
  }

  void survives_reparenting_to_another_window() {
    // Moving a QOpenGLWidget to another top-level window re-creates its GL
    // context: VTK must release its resources in the old one and render in the new.
    QWidget first, second;
    auto* viewer = new VolumeViewerWidget(&first);
    first.resize(700, 600);
    viewer->resize(700, 600);
    first.show();
    QVERIFY(QTest::qWaitForWindowExposed(&first));
    open_and_wait(viewer, ct_path_);
    QVERIFY(vt::image_stddev(frame_of(viewer->slice_view(SliceOrientation::axial))) > 20.0);
    QVERIFY(vt::image_stddev(frame_of(viewer->volume_view())) > 10.0);
    QSignalSpy reinitialized(viewer->volume_view(), &VtkOpenGLWidget::gl_initialized);
    viewer->setParent(&second);
    second.resize(700, 600);
    viewer->resize(700, 600);
    viewer->show();
    second.show();
    QVERIFY(QTest::qWaitForWindowExposed(&second));
    QVERIFY(QTest::qWaitFor([&] { return reinitialized.count() > 0; }, k_timeout_ms));
    QVERIFY(vt::image_stddev(frame_of(viewer->slice_view(SliceOrientation::axial))) > 20.0);
    QVERIFY(vt::image_stddev(frame_of(viewer->volume_view())) > 10.0);
  }

  void axial_coronal_sagittal_follow_the_radiological_convention() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), marker_path_);
    viewer->set_window_level({1000.0, 500.0});  // background black, marker white
    viewer->set_cursor(vt::marker_center());
    const vt::Box box = vt::marker_box();
    // Expected screen quadrant of the marker (left patient = +x, anterior = -y, superior = +z):
    //   axial: right half (L), top half (A); coronal: right (L), top (S); sagittal: left (A), top (S).
    const struct {
      SliceOrientation orientation;
      bool right;
      bool top;
    } expected[] = {{SliceOrientation::axial, true, true},
                    {SliceOrientation::coronal, true, true},
                    {SliceOrientation::sagittal, false, true}};
    for (const auto& e : expected) {
      SliceView* view = viewer->slice_view(e.orientation);
      view->set_annotations_visible(false);
      const QImage frame = frame_of(view);
      QImage copy = frame;
      copy.save(vt::test_output_dir() + QStringLiteral("/marker-%1.png").arg(orientation_name(e.orientation)));
      int count = 0;
      const QPointF c = vt::bright_centroid(frame, 200, &count);
      QVERIFY2(count > 20, qPrintable(orientation_name(e.orientation)));
      const qreal ratio = view->devicePixelRatioF();
      QCOMPARE(c.x() > frame.width() / 2.0, e.right);
      QCOMPARE(c.y() < frame.height() / 2.0, e.top);
      // What is drawn there is what the probe reports there.
      const VoxelProbe probe = view->probe_at(c / ratio);
      QVERIFY(probe.inside);
      QCOMPARE(probe.value, 1000.0f);
      for (int a = 0; a < 3; ++a) {
        QVERIFY(probe.world[a] >= box.min[a] - 1.6 && probe.world[a] <= box.max[a] + 1.6);
      }
      view->set_annotations_visible(true);
    }
  }

  void probe_reports_the_voxel_vtk_draws_at_a_view_position() {
    // Oblique (30 degrees about z), anisotropic volume: the probe must agree
    // with VTK's own display -> world conversion of the rendered camera.
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ramp_path_);
    const VolumeGeometry geometry(*viewer->volume());
    int checked = 0;
    for (SliceOrientation o : k_orientations) {
      SliceView* view = viewer->slice_view(o);
      QVERIFY(!frame_of(view).isNull());  // renders, so VTK's camera is the one in use
      vtkRenderer* renderer = view->scene().renderer();
      const ViewAxes axes = view_axes(o);
      const SliceCamera cam = view->camera();
      const int w = view->width(), h = view->height();
      for (double fx = 0.3; fx < 0.71; fx += 0.057) {
        for (double fy = 0.3; fy < 0.71; fy += 0.057) {
          const QPointF position(std::floor(w * fx), std::floor(h * fy));
          // VTK: display y from the bottom, at the pixel's centre.
          renderer->SetDisplayPoint(position.x() + 0.5, h - position.y() - 0.5, 0.5);
          renderer->DisplayToWorld();
          double p[4];
          renderer->GetWorldPoint(p);
          Vec3 vtk_world{p[0] / p[3], p[1] / p[3], p[2] / p[3]};
          // Onto the displayed slice plane (the depth of a display point is arbitrary).
          vtk_world = sub(vtk_world, scale(axes.projection, dot(sub(vtk_world, cam.focal), axes.projection)));
          const Vec3 ours = view->world_at(position);
          for (int a = 0; a < 3; ++a)
            QVERIFY2(std::abs(ours[a] - vtk_world[a]) <= cam.mm_per_pixel(),
                     qPrintable(QStringLiteral("%1 axis %2: %3 vs %4")
                                    .arg(orientation_name(o))
                                    .arg(a)
                                    .arg(ours[a])
                                    .arg(vtk_world[a])));
          // Away from voxel borders, both must name the same voxel and value.
          const Vec3 continuous = geometry.world_to_index(vtk_world);
          bool clear_of_border = true;
          for (int a = 0; a < 3; ++a) {
            const double frac = continuous[a] - std::floor(continuous[a]);
            clear_of_border = clear_of_border && std::abs(frac - 0.5) > 2.0 * cam.mm_per_pixel() / geometry.spacing()[a];
          }
          const VoxelProbe probe = view->probe_at(position);
          if (!clear_of_border || !probe.inside) continue;
          QCOMPARE(probe.index, geometry.nearest_index(vtk_world));
          QCOMPARE(probe.value, vt::ramp_value(probe.index[0], probe.index[1], probe.index[2]));
          ++checked;
        }
      }
    }
    QVERIFY2(checked >= 40, qPrintable(QString::number(checked)));
  }

  void hovering_reports_value_and_position() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ramp_path_);
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    QSignalSpy hovered(viewer.get(), &VolumeViewerWidget::voxel_hovered);
    const QPointF position(axial->width() * 0.5, axial->height() * 0.5);
    send_mouse(axial, QEvent::MouseMove, Qt::NoButton, Qt::NoButton, position);
    QCOMPARE(hovered.count(), 1);
    const auto probe = hovered.at(0).at(0).value<VoxelProbe>();
    QVERIFY(probe.inside);
    QCOMPARE(probe.value, vt::ramp_value(probe.index[0], probe.index[1], probe.index[2]));
    QVERIFY(viewer->status_text().contains(QStringLiteral("value %1").arg(static_cast<double>(probe.value), 0, 'g', 6)));
    QVERIFY(viewer->status_text().contains(QLatin1String("LPS")));
  }

  void window_level_presets_and_colormaps_change_the_image() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    QSignalSpy changed(viewer.get(), &VolumeViewerWidget::window_level_changed);
    viewer->apply_window_preset(WindowPreset::ct_soft_tissue);
    QCOMPARE(viewer->window_level(), (WindowLevel{350.0, 40.0}));
    const QImage soft = frame_of(axial);
    viewer->apply_window_preset(WindowPreset::ct_lung);
    QCOMPARE(viewer->window_level(), (WindowLevel{1400.0, -500.0}));
    QCOMPARE(changed.count(), 2);
    QCOMPARE(viewer->toolbar()->window_box()->currentData().toInt(), static_cast<int>(WindowPreset::ct_lung));
    const QImage lung = frame_of(axial);
    QVERIFY(vt::image_stddev(soft) > 20.0);
    QVERIFY(vt::image_stddev(lung) > 20.0);
    const double difference = vt::mean_abs_difference(soft, lung);
    QVERIFY2(difference > 5.0, qPrintable(QString::number(difference)));
    soft.save(vt::test_output_dir() + QStringLiteral("/ct-soft-tissue-axial.png"));
    lung.save(vt::test_output_dir() + QStringLiteral("/ct-lung-axial.png"));
    // The lungs (-800 HU) are black in the soft-tissue window, grey in the lung window.
    // Colormap: hot gives colour, grey does not.
    viewer->set_colormap(Colormap::hot);
    const QImage hot = frame_of(axial);
    int coloured = 0;
    for (int y = 0; y < hot.height(); y += 4)
      for (int x = 0; x < hot.width(); x += 4) {
        const QRgb p = hot.pixel(x, y);
        if (qRed(p) > qBlue(p) + 60) ++coloured;
      }
    QVERIFY(coloured > 50);
    QCOMPARE(viewer->colormap(), Colormap::hot);
    // The 3D preset changes the rendering.
    const QImage bone = frame_of(viewer->volume_view());
    viewer->set_volume_preset(VolumePreset::ct_soft_tissue);
    const QImage soft3d = frame_of(viewer->volume_view());
    QVERIFY(vt::mean_abs_difference(bone, soft3d) > 2.0);
  }

  void right_drag_adjusts_window_level() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    viewer->apply_window_preset(WindowPreset::ct_soft_tissue);
    SliceView* coronal = viewer->slice_view(SliceOrientation::coronal);
    const QImage before = frame_of(coronal);
    const QPointF start(coronal->width() / 2.0, coronal->height() / 2.0);
    send_mouse(coronal, QEvent::MouseButtonPress, Qt::RightButton, Qt::RightButton, start);
    send_mouse(coronal, QEvent::MouseMove, Qt::NoButton, Qt::RightButton, start + QPointF(60, -30));
    send_mouse(coronal, QEvent::MouseButtonRelease, Qt::RightButton, Qt::NoButton, start + QPointF(60, -30));
    const WindowLevel wl = viewer->window_level();
    QVERIFY(wl.window > 350.0);  // dragged right: wider
    QVERIFY(wl.level > 40.0);    // dragged up: higher
    QVERIFY(!viewer->window_preset().has_value());
    QCOMPARE(viewer->toolbar()->window_box()->currentText(), QStringLiteral("Custom"));
    QVERIFY(vt::mean_abs_difference(before, frame_of(coronal)) > 1.0);
    // The crosshair did not move: the right button is not a click.
    QCOMPARE(viewer->cursor(), VolumeGeometry(*viewer->volume()).center());
  }

  void clicking_moves_the_crosshair_in_every_view() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    QSignalSpy moved(viewer.get(), &VolumeViewerWidget::cursor_changed);
    const QImage coronal_before = frame_of(viewer->slice_view(SliceOrientation::coronal));
    const QPointF position(axial->width() * 0.3, axial->height() * 0.7);
    const VoxelProbe probe = axial->probe_at(position);
    QVERIFY(probe.inside);
    send_mouse(axial, QEvent::MouseButtonPress, Qt::LeftButton, Qt::LeftButton, position);
    send_mouse(axial, QEvent::MouseButtonRelease, Qt::LeftButton, Qt::NoButton, position);
    QCOMPARE(moved.count(), 1);
    const VolumeGeometry geometry(*viewer->volume());
    const Vec3 expected = geometry.voxel_center(probe.index);
    QCOMPARE(viewer->cursor(), expected);
    for (SliceOrientation o : k_orientations) QCOMPARE(viewer->slice_view(o)->cursor(), expected);
    // The coronal view now shows the plane through the clicked point.
    QCOMPARE(viewer->slice_view(SliceOrientation::coronal)->camera().focal[1], expected[1]);
    QVERIFY(vt::mean_abs_difference(coronal_before, frame_of(viewer->slice_view(SliceOrientation::coronal))) > 1.0);
    // Dragging keeps following.
    send_mouse(axial, QEvent::MouseButtonPress, Qt::LeftButton, Qt::LeftButton, position);
    send_mouse(axial, QEvent::MouseMove, Qt::NoButton, Qt::LeftButton, position + QPointF(25, 0));
    send_mouse(axial, QEvent::MouseButtonRelease, Qt::LeftButton, Qt::NoButton, position + QPointF(25, 0));
    QVERIFY(viewer->cursor()[0] > expected[0]);  // to the screen's right: patient left, +x
  }

  void wheel_scrolls_one_slice_and_ctrl_wheel_zooms() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    const VolumeGeometry geometry(*viewer->volume());
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    const Index3 start = geometry.nearest_index(viewer->cursor());
    const QPointF centre(axial->width() / 2.0, axial->height() / 2.0);
    send_wheel(axial, centre, 120);
    QCOMPARE(geometry.nearest_index(viewer->cursor()), (Index3{start[0], start[1], start[2] + 1}));
    send_wheel(axial, centre, -240);
    QCOMPARE(geometry.nearest_index(viewer->cursor()), (Index3{start[0], start[1], start[2] - 1}));
    // Sagittal: the wheel moves along its normal (x), not z.
    send_wheel(viewer->slice_view(SliceOrientation::sagittal), centre, 120);
    QCOMPARE(geometry.nearest_index(viewer->cursor())[2], start[2] - 1);
    QVERIFY(geometry.nearest_index(viewer->cursor())[0] != start[0]);
    // Never past the last slice.
    viewer->scroll_slice(SliceOrientation::axial, 1000);
    QCOMPARE(geometry.nearest_index(viewer->cursor())[2], std::int64_t{31});
    const Vec3 cursor = viewer->cursor();
    QSignalSpy view_changed(viewer.get(), &VolumeViewerWidget::slice_view_changed);
    send_wheel(axial, centre, 240, Qt::ControlModifier);
    QVERIFY(axial->zoom() > 1.2);
    QCOMPARE(viewer->cursor(), cursor);
    QCOMPARE(view_changed.count(), 1);
  }

  void dropping_a_file_opens_it() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(ramp_path_)});
    const QPoint inside(100, 100);
    QDragEnterEvent enter(inside, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewer.get(), &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy loaded(viewer.get(), &VolumeViewerWidget::volume_loaded);
    QSignalSpy failed(viewer.get(), &VolumeViewerWidget::load_failed);
    QDropEvent drop(inside, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewer.get(), &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(wait_for_load(loaded, failed));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(viewer->volume_label(), QFileInfo(ramp_path_).absoluteFilePath());
    QCOMPARE(viewer->volume()->size, (std::array<std::size_t, 3>{24, 20, 16}));

    // A web link is not accepted; a folder is (it may hold a DICOM series).
    QMimeData web;
    web.setUrls({QUrl(QStringLiteral("https://example.org/ct.nii.gz"))});
    QDragEnterEvent web_enter(inside, Qt::CopyAction, &web, Qt::LeftButton, Qt::NoModifier);
    web_enter.ignore();
    QApplication::sendEvent(viewer.get(), &web_enter);
    QVERIFY(!web_enter.isAccepted());
    QVERIFY(QDir(dir_.path()).mkpath(QStringLiteral("empty-series")));
    QMimeData folder;
    folder.setUrls({QUrl::fromLocalFile(path(QStringLiteral("empty-series")))});
    QDropEvent folder_drop(inside, Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
    // Qt delivers a drop only to the widget that accepted the drag's enter event.
    QDragEnterEvent folder_enter(inside, Qt::CopyAction, &folder, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewer.get(), &folder_enter);
    QVERIFY(folder_enter.isAccepted());
    QApplication::sendEvent(viewer.get(), &folder_drop);
    QVERIFY(folder_drop.isAccepted());
    QVERIFY2(QTest::qWaitFor([&] { return failed.count() > 0; }, k_timeout_ms),
             qPrintable(QStringLiteral("loaded %1, message %2").arg(loaded.count()).arg(viewer->message_text())));
    QVERIFY2(viewer->error_text().contains(QLatin1String("empty-series")), qPrintable(viewer->error_text()));
    QVERIFY(viewer->has_volume());  // the previous volume stays
  }

  void dropping_a_dicom_folder_opens_the_series() {
    const QString folder = path(QStringLiteral("dicom-ct"));
    QVERIFY(QDir().mkpath(folder));
    const Volume ct = vt::ct_phantom();
    medsynth::test::write_dicom_series_with_itk(ct, folder.toStdString());
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(folder)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewer.get(), &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy loaded(viewer.get(), &VolumeViewerWidget::volume_loaded);
    QSignalSpy failed(viewer.get(), &VolumeViewerWidget::load_failed);
    QDropEvent drop(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(viewer.get(), &drop);
    QVERIFY(wait_for_load(loaded, failed));
    QVERIFY2(failed.isEmpty(), qPrintable(viewer->error_text()));
    QCOMPARE(viewer->volume()->size, ct.size);
    // int16 DICOM round trip of HU values: the spine voxel under the crosshair reads 700.
    const VolumeGeometry geometry(*viewer->volume());
    const VoxelProbe spine = probe_voxel(*viewer->volume(), geometry, {0.0, 9.0, 0.0});
    QVERIFY(spine.inside);
    QCOMPARE(spine.value, 700.0f);
    QVERIFY(vt::image_stddev(frame_of(viewer->slice_view(SliceOrientation::axial))) > 20.0);
  }

  void one_file_of_a_dicom_series_opens_the_series() {
    // What a file manager passes for "Open with medsynth" on a DICOM file.
    const QString folder = path(QStringLiteral("dicom-one-file"));
    QVERIFY(QDir().mkpath(folder));
    const Volume ct = vt::ct_phantom();
    medsynth::test::write_dicom_series_with_itk(ct, folder.toStdString());
    const QStringList files = QDir(folder).entryList(QDir::Files, QDir::Name);
    QVERIFY(!files.isEmpty());
    // Without a .dcm name too: the "DICM" preamble decides.
    const QString one_file = QDir(folder).filePath(QStringLiteral("slice-without-extension"));
    QVERIFY(QFile::rename(QDir(folder).filePath(files.front()), one_file));
    const LoadedVolume loaded = load_volume_file(one_file);
    QCOMPARE(loaded.volume->size, ct.size);
    QCOMPARE(QFileInfo(loaded.path).absoluteFilePath(), QFileInfo(folder).absoluteFilePath());
    QVERIFY2(loaded.warnings.join(' ').contains(QLatin1String("DICOM series")), qPrintable(loaded.warnings.join(' ')));
  }

  void non_finite_voxels_are_shown_as_zero_with_a_warning() {
    Volume v = vt::marker_volume();
    v.at(1, 2, 3) = std::numeric_limits<float>::quiet_NaN();
    v.at(4, 5, 6) = std::numeric_limits<float>::infinity();
    const QString file = path(QStringLiteral("diverged.nii"));
    medsynth::test::write_float64_nifti_with_itk(v, file.toStdString());
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), file);
    QVERIFY(viewer->has_volume());
    QCOMPARE(viewer->volume()->at(1, 2, 3), 0.0f);
    QVERIFY2(viewer->message_text().contains(QLatin1String("2 non-finite voxels")), qPrintable(viewer->message_text()));
    // Refusing them stays possible.
    ViewerOptions strict;
    strict.read_options.reject_non_finite = true;
    auto strict_viewer = make_viewer(strict);
    QVERIFY(strict_viewer);
    QSignalSpy loaded(strict_viewer.get(), &VolumeViewerWidget::volume_loaded);
    QSignalSpy failed(strict_viewer.get(), &VolumeViewerWidget::load_failed);
    strict_viewer->open_volume(file);
    QVERIFY(wait_for_load(loaded, failed));
    QCOMPARE(failed.count(), 1);
    QVERIFY(strict_viewer->error_text().contains(QLatin1String("non-finite")));
  }

  // Issue 38: the presets came from the intensities alone, wrong both ways (a
  // generated CT with a 172 HU maximum was "MRI"). A medsynth file's recorded
  // modality now decides, CT's window and level read in HU, and a file that
  // records none is guessed, and says so.
  void the_recorded_modality_decides_and_a_guess_says_so() {
    Volume v = vt::ct_phantom();
    for (float& x : v.voxels) x = std::min(x, 172.0f) * 0.01f;  // no bone, and nothing like HU any more
    const QString file = path(QStringLiteral("generated_ct.nii.gz"));
    vt::write_nifti(v, file);
    GenerationProvenance p;
    p.engine_version = "0.1.0";
    p.unet_checkpoint = p.autoencoder_checkpoint = "/runs/a/last.safetensors";
    p.unet_checkpoint_hash = p.autoencoder_checkpoint_hash = std::string(64, '0');
    p.scheduler = "rflow";
    p.num_inference_steps = 30;
    p.device = "cpu";
    p.job_config_hash = "abc";
    p.job_yaml = "name: x\n";
    p.modality = "ct";
    add_nifti_comment_extension(file.toStdString(), provenance_json(p));
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QVERIFY(viewer->toolbar());
    open_and_wait(viewer.get(), file);
    QCOMPARE(viewer->toolbar()->modality_label()->text(), QStringLiteral("CT"));
    QCOMPARE(viewer->volume_preset(), VolumePreset::ct_bone);
    const auto* wl = viewer->toolbar()->findChild<QLabel*>(QStringLiteral("window_level_text"));
    QVERIFY(wl);
    QVERIFY2(wl->text().contains(QLatin1String(" HU")), qPrintable(wl->text()));
    // Without a provenance the same intensities are read as an MRI: a guess.
    const QString foreign = path(QStringLiteral("foreign.nii.gz"));
    vt::write_nifti(v, foreign);
    open_and_wait(viewer.get(), foreign);
    QCOMPARE(viewer->toolbar()->modality_label()->text(), QStringLiteral("MRI (guessed)"));
    QVERIFY2(!wl->text().contains(QLatin1String("HU")), qPrintable(wl->text()));
  }

  void bad_files_show_the_volume_layers_error() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    open_and_wait(viewer.get(), ct_path_);
    const QString missing = path(QStringLiteral("missing.nii.gz"));
    for (const QString& bad : {truncated_path_, garbage_path_, missing}) {
      QSignalSpy loaded(viewer.get(), &VolumeViewerWidget::volume_loaded);
      QSignalSpy failed(viewer.get(), &VolumeViewerWidget::load_failed);
      viewer->open_volume(bad);
      QVERIFY(wait_for_load(loaded, failed));
      QCOMPARE(loaded.count(), 0);
      QCOMPARE(failed.count(), 1);
      const QString message = failed.at(0).at(0).toString();
      QVERIFY2(message.contains(QFileInfo(bad).fileName()), qPrintable(message));
      QCOMPARE(viewer->error_text(), message);
      QCOMPARE(viewer->message_text(), message);  // shown in the widget
      // Still alive and still showing the last good volume.
      QVERIFY(viewer->has_volume());
      QCOMPARE(viewer->volume_label(), ct_path_);
      QVERIFY(vt::image_stddev(frame_of(viewer->slice_view(SliceOrientation::axial))) > 20.0);
    }
    const QPixmap shot = viewer->grab();
    shot.save(vt::test_output_dir() + QStringLiteral("/viewer-error.png"));
    open_and_wait(viewer.get(), ramp_path_);
    QVERIFY(viewer->error_text().isEmpty());
    QVERIFY(!viewer->message_text().contains(QLatin1String("truncated")));
  }

  void compare_links_the_viewers_and_shows_a_difference() {
    Volume b_volume = vt::ramp_volume();
    for (auto& v : b_volume.voxels) v = v * 0.5f;
    const QString b_path = vt::write_nifti(b_volume, path(QStringLiteral("ramp_half.nii.gz")));
    CompareWidget compare;
    compare.resize(1250, 980);
    compare.show();
    QVERIFY(QTest::qWaitForWindowExposed(&compare));
    QSignalSpy updated(&compare, &CompareWidget::difference_updated);
    compare.open_volumes(ramp_path_, b_path);
    QVERIFY(QTest::qWaitFor([&] { return compare.viewer_a()->has_volume() && compare.viewer_b()->has_volume(); },
                            k_timeout_ms));
    QVERIFY(!updated.isEmpty());
    QVERIFY2(compare.difference_available(), qPrintable(compare.difference_message()));
    VolumeViewerWidget* a = compare.viewer_a();
    VolumeViewerWidget* b = compare.viewer_b();
    VolumeViewerWidget* d = compare.difference_viewer();
    QCOMPARE(d->colormap(), Colormap::diverging);
    QCOMPARE(d->window_level().level, 0.0);
    QCOMPARE(compare.difference_max_abs(), 151923.0 / 2.0);

    // A click in A moves B and the difference view; the difference there is A - B.
    SliceView* axial_a = a->slice_view(SliceOrientation::axial);
    const QPointF position(axial_a->width() * 0.45, axial_a->height() * 0.55);
    const VoxelProbe pa = axial_a->probe_at(position);
    QVERIFY(pa.inside);
    send_mouse(axial_a, QEvent::MouseButtonPress, Qt::LeftButton, Qt::LeftButton, position);
    send_mouse(axial_a, QEvent::MouseButtonRelease, Qt::LeftButton, Qt::NoButton, position);
    QCOMPARE(b->cursor(), a->cursor());
    QCOMPARE(d->cursor(), a->cursor());
    const VolumeGeometry geometry(*d->volume());
    const VoxelProbe pd = probe_voxel(*d->volume(), geometry, d->cursor());
    QCOMPARE(pd.index, pa.index);
    QCOMPARE(pd.value, pa.value - pa.value * 0.5f);

    // Window/level and colours follow between A and B, not into the difference.
    a->apply_window_preset(WindowPreset::ct_bone);
    QCOMPARE(b->window_level(), a->window_level());
    QCOMPARE(d->window_level().level, 0.0);
    b->set_colormap(Colormap::perceptual);
    QCOMPARE(a->colormap(), Colormap::perceptual);
    QCOMPARE(d->colormap(), Colormap::diverging);

    // Zoom in B's sagittal view zooms A's.
    SliceView* sagittal_b = b->slice_view(SliceOrientation::sagittal);
    send_wheel(sagittal_b, QPointF(sagittal_b->width() / 2.0, sagittal_b->height() / 2.0), 120, Qt::ControlModifier);
    QCOMPARE(a->slice_view(SliceOrientation::sagittal)->zoom(), sagittal_b->zoom());

    // Rotating A's 3D view rotates B's.
    VolumeRenderView* view_a = a->volume_view();
    QVERIFY(!frame_of(view_a).isNull());
    const CameraState before = b->camera();
    const QPointF centre(view_a->width() / 2.0, view_a->height() / 2.0);
    send_mouse(view_a, QEvent::MouseButtonPress, Qt::LeftButton, Qt::LeftButton, centre);
    send_mouse(view_a, QEvent::MouseMove, Qt::NoButton, Qt::LeftButton, centre + QPointF(40, 10));
    send_mouse(view_a, QEvent::MouseButtonRelease, Qt::LeftButton, Qt::NoButton, centre + QPointF(40, 10));
    QVERIFY(!nearly_equal(before, b->camera(), 1e-6));
    QVERIFY(nearly_equal(a->camera(), b->camera(), 1e-9));
    QTest::qWait(50);
    compare.grab().save(vt::test_output_dir() + QStringLiteral("/compare.png"));

    // A different grid: no difference image, and the message says why.
    QSignalSpy loaded_b(b, &VolumeViewerWidget::volume_loaded);
    compare.open_b(ct_path_);
    QVERIFY(QTest::qWaitFor([&] { return loaded_b.count() > 0; }, k_timeout_ms));
    QVERIFY(!compare.difference_available());
    QVERIFY2(compare.difference_message().contains(QLatin1String("size differs: 24x20x16 vs 48x48x32")),
             qPrintable(compare.difference_message()));
    QVERIFY(!d->has_volume());
  }

  void samples_panel_follows_the_newest_volume() {
    QTemporaryDir run;
    QVERIFY(QDir(run.path()).mkpath(QStringLiteral("output")));
    const QString first = vt::write_nifti(vt::ramp_volume(), run.filePath(QStringLiteral("output/image_seed0_rank0.nii.gz")));
    const QString second = vt::write_nifti(vt::ct_phantom(), run.filePath(QStringLiteral("output/image_seed1_rank0.nii.gz")));
    const QString third = vt::write_nifti(vt::marker_volume(), run.filePath(QStringLiteral("output/image_seed2_rank0.nii.gz")));
    SamplesPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.set_run_dir(run.path());
    QSignalSpy loaded(panel.viewer(), &VolumeViewerWidget::volume_loaded);
    panel.add_artifact(QStringLiteral("output/image_seed0_rank0.nii.gz"), QStringLiteral("volume"), 100);
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() == 1; }, k_timeout_ms));
    QCOMPARE(panel.viewer()->volume_label(), first);
    panel.add_artifact(QStringLiteral("checkpoints/last.pt"), QStringLiteral("checkpoint"), 100);  // not a volume
    QCOMPARE(panel.sample_count(), 1);
    panel.add_artifact(QStringLiteral("output/image_seed1_rank0.nii.gz"), QStringLiteral("volume"), 200);
    QCOMPARE(panel.sample_count(), 2);
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() == 2; }, k_timeout_ms));
    QCOMPARE(panel.viewer()->volume_label(), second);
    QCOMPARE(panel.current_path(), second);
    // Not following: a new sample is listed but the shown one stays.
    panel.set_follow_newest(false);
    panel.select_sample(0);
    QVERIFY(QTest::qWaitFor([&] { return loaded.count() == 3; }, k_timeout_ms));
    panel.add_artifact(third, QStringLiteral("volume"), 300);
    QCOMPARE(panel.sample_count(), 3);
    QTest::qWait(200);
    QCOMPARE(panel.viewer()->volume_label(), first);

    // Bound to a RunModel: its artifacts so far, then new ones.
    app::RunModel model;
    model.set_run_dir(run.path());
    model.apply_artifact({first, QStringLiteral("volume"), 100});
    panel.set_follow_newest(true);
    panel.set_run_model(&model);
    QCOMPARE(panel.sample_count(), 1);
    model.apply_artifact({third, QStringLiteral("volume"), 300});
    QCOMPARE(panel.sample_count(), 2);
    QVERIFY(QTest::qWaitFor([&] { return panel.viewer()->volume_label() == third && !panel.viewer()->is_loading(); },
                            k_timeout_ms));
    panel.grab().save(vt::test_output_dir() + QStringLiteral("/samples-panel.png"));
  }
};

QTEST_MAIN(ViewerWidgetTest)
#include "viewer_widget_test.moc"
