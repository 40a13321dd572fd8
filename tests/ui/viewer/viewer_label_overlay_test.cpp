// GUI test of the viewer's label overlay under Xvfb (xcb, llvmpipe): a CT
// phantom and its label map (written with medsynth_volume), the X_image /
// X_label pairing, what the toggle and the opacity slider change in the
// rendered pixels, the refusal of a label map on another grid, and the
// screenshot build/test-output/ui/viewer-label-overlay.png: the pair that
// `generate --label` makes from the miniature NV-Generate folder (when the
// engine is built), else the phantom.
#include <algorithm>

#include <QCheckBox>
#include <QDir>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/viewer/label_map.hpp"
#include "ui/viewer/label_overlay_controller.hpp"
#include "ui/viewer/label_overlay_controls.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/viewer_toolbar.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "viewer_test_volumes.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {

constexpr int k_timeout_ms = 30000;

// Body 1, lungs 2, spine 3: the phantom's tissues as labels on its own grid.
Volume phantom_labels(const Volume& ct) {
  Volume labels = ct;
  for (float& v : labels.voxels) v = v > 500.0f ? 3.0f : v < -900.0f ? 0.0f : v < -500.0f ? 2.0f : 1.0f;
  return labels;
}

// A box of label 1 and a smaller box of label 4 in the middle of any grid.
Volume box_labels(const Volume& image) {
  Volume labels = image;
  const auto& n = image.size;
  for (std::size_t k = 0; k < n[2]; ++k)
    for (std::size_t j = 0; j < n[1]; ++j)
      for (std::size_t i = 0; i < n[0]; ++i) {
        const bool outer = i >= n[0] / 5 && i < n[0] * 4 / 5 && j >= n[1] / 5 && j < n[1] * 4 / 5;
        const bool inner = i >= n[0] * 2 / 5 && i < n[0] * 3 / 5 && j >= n[1] * 2 / 5 && j < n[1] * 3 / 5;
        labels.at(i, j, k) = inner ? 4.0f : outer ? 1.0f : 0.0f;
      }
  return labels;
}

// import-maisi + generate of the miniature folder; empty when it cannot run.
QString generate_miniature(const QString& engine, const QString& work) {
  const QString run = work + QStringLiteral("/maisi-run");
  const QString folder = QStringLiteral(MEDSYNTH_SOURCE_DIR "/tests/engine/diffusion/data/maisi_folder");
  for (const QStringList& args : {QStringList{"import-maisi", folder, "--out", run},
                                  QStringList{"generate", run, "--num-images", "1"}}) {
    QProcess p;
    p.start(engine, args);
    if (!p.waitForFinished(120000) || p.exitCode() != 0) {
      qWarning("engine %s failed: %s", qPrintable(args.front()), p.readAllStandardError().constData());
      return {};
    }
  }
  const QStringList found = QDir(run + "/output").entryList({"*.nii.gz"}, QDir::Files, QDir::Name);
  return found.isEmpty() ? QString() : run + "/output/" + found.front();
}

QString ui_output_dir() {
  const QString dir = QStringLiteral(MEDSYNTH_UI_TEST_OUTPUT);
  QDir().mkpath(dir);
  return dir;
}

// Mean colour of a small square around a widget point (logical = device pixels under Xvfb).
QColor mean_color(const QImage& frame, QPointF at) {
  double r = 0, g = 0, b = 0;
  int n = 0;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) {
      const QRgb p = frame.pixel(int(at.x()) + dx, int(at.y()) + dy);
      r += qRed(p), g += qGreen(p), b += qBlue(p), ++n;
    }
  return QColor(int(r / n), int(g / n), int(b / n));
}

}  // namespace

class ViewerLabelOverlayTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString image_path_, label_path_, lone_image_path_, mismatch_path_;

  std::unique_ptr<VolumeViewerWidget> make_viewer() {
    auto viewer = std::make_unique<VolumeViewerWidget>();
    viewer->resize(1000, 800);
    viewer->show();
    if (!QTest::qWaitForWindowExposed(viewer.get())) return nullptr;
    return viewer;
  }

  // Opens an image and waits for it and, when `with_labels`, its label map.
  bool open_pair(VolumeViewerWidget* viewer, const QString& image, bool with_labels) {
    QSignalSpy loaded(viewer, &VolumeViewerWidget::volume_loaded);
    QSignalSpy labels(viewer, &VolumeViewerWidget::label_map_loaded);
    QSignalSpy failed(viewer, &VolumeViewerWidget::label_map_failed);
    viewer->open_volume(image);
    if (!QTest::qWaitFor([&] { return loaded.count() > 0; }, k_timeout_ms)) return false;
    if (!with_labels) return true;
    return QTest::qWaitFor([&] { return labels.count() + failed.count() > 0; }, k_timeout_ms) && failed.isEmpty();
  }

  // A point inside the body, away from the crosshair, in the axial view.
  QPointF body_point(VolumeViewerWidget* viewer) {
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    return axial->camera().world_to_display(Vec3{3.5, -12.5, viewer->cursor()[2]});
  }

 private slots:
  void initTestCase() {
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
      QSKIP("QOpenGLWidget needs a GL platform: run under Xvfb with QT_QPA_PLATFORM=xcb");
    QVERIFY(dir_.isValid());
    const Volume ct = vt::ct_phantom();
    image_path_ = vt::write_nifti(ct, dir_.filePath("phantom_image.nii.gz"));
    label_path_ = vt::write_nifti(phantom_labels(ct), dir_.filePath("phantom_label.nii.gz"));
    lone_image_path_ = vt::write_nifti(ct, dir_.filePath("phantom.nii.gz"));
    mismatch_path_ = vt::write_nifti(box_labels(vt::marker_volume()), dir_.filePath("other_grid_label.nii.gz"));
  }

  void an_image_named_x_image_opens_its_x_label_sibling() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QVERIFY(open_pair(viewer.get(), image_path_, true));
    QVERIFY(viewer->has_label_map());
    QCOMPARE(viewer->label_map_path(), label_path_);
    QVERIFY2(viewer->message_text().contains("phantom_label.nii.gz"), qPrintable(viewer->message_text()));
    // The toolbar's toggle and slider are live once labels are shown.
    LabelOverlayControls* controls = viewer->toolbar()->label_controls();
    QVERIFY(controls->visible_box()->isEnabled() && controls->visible_box()->isChecked());
    QVERIFY(controls->opacity_slider()->isEnabled());
    // The status line names the label under the cursor (the body: 1), with
    // its MAISI CT class name, and a CT value in HU (issue 53 item 10).
    QVERIFY2(viewer->status_text().contains("label 1 (liver)"), qPrintable(viewer->status_text()));
    QVERIFY2(viewer->status_text().contains(" HU  LPS"), qPrintable(viewer->status_text()));

    // An image without a sibling opens without labels, and clears the old ones.
    QVERIFY(open_pair(viewer.get(), lone_image_path_, false));
    QVERIFY(!viewer->has_label_map());
    QVERIFY(!controls->visible_box()->isEnabled());
  }

  void toggle_and_opacity_change_what_is_drawn() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QVERIFY(open_pair(viewer.get(), image_path_, true));
    SliceView* axial = viewer->slice_view(SliceOrientation::axial);
    LabelOverlayControls* controls = viewer->toolbar()->label_controls();
    const QPointF body = body_point(viewer.get());

    controls->opacity_slider()->setValue(100);  // as the user drags it
    QCOMPARE(viewer->label_overlay()->opacity(), 1.0);
    const QImage opaque = axial->grab_frame();
    const QColor c = mean_color(opaque, body);
    // Label 1 is red, fully opaque: the grey body (40 HU) is covered.
    QVERIFY2(c.red() > 180 && c.green() < 60 && c.blue() < 60, qPrintable(c.name()));

    controls->opacity_slider()->setValue(20);
    QCOMPARE(viewer->label_overlay()->opacity(), 0.2);
    const QImage faint = axial->grab_frame();
    const QColor f = mean_color(faint, body);
    QVERIFY2(f.red() < c.red() && f.green() > c.green() + 30, qPrintable(f.name()));

    controls->visible_box()->click();  // hide
    QVERIFY(!viewer->label_overlay()->visible());
    const QImage hidden = axial->grab_frame();
    const QColor h = mean_color(hidden, body);
    QVERIFY2(std::abs(h.red() - h.green()) < 8 && std::abs(h.green() - h.blue()) < 8, qPrintable(h.name()));  // grey
    QVERIFY(vt::mean_abs_difference(opaque, hidden) > 5.0);

    // Hidden labels draw exactly what the image alone draws.
    viewer->clear_label_map();
    const QImage none = axial->grab_frame();
    QVERIFY2(vt::mean_abs_difference(hidden, none) < 0.5, "hidden labels still change the picture");

    QVERIFY(open_pair(viewer.get(), image_path_, true));
    controls->visible_box()->click();  // show again (the toggle stays where the user left it)
    QVERIFY(viewer->label_overlay()->visible());
    QVERIFY(vt::mean_abs_difference(axial->grab_frame(), none) > 1.0);
  }

  void a_label_map_on_another_grid_is_refused_naming_both_files() {
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QVERIFY(open_pair(viewer.get(), image_path_, true));
    QSignalSpy failed(viewer.get(), &VolumeViewerWidget::label_map_failed);
    viewer->open_label_map(mismatch_path_);
    QVERIFY(QTest::qWaitFor([&] { return failed.count() > 0; }, k_timeout_ms));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains("phantom_image.nii.gz") && message.contains("other_grid_label.nii.gz"),
             qPrintable(message));
    QVERIFY2(message.contains("40 x 40 x 30") && message.contains("48 x 48 x 32"), qPrintable(message));
    QCOMPARE(viewer->message_text(), message);
    // The labels that fit stay.
    QCOMPARE(viewer->label_map_path(), label_path_);

    // No image yet: refused too.
    auto empty = make_viewer();
    QSignalSpy refused(empty.get(), &VolumeViewerWidget::label_map_failed);
    empty->open_label_map(label_path_);
    QCOMPARE(refused.count(), 1);
    QVERIFY(!empty->has_label_map());
  }

  void screenshot_of_a_generated_image_with_its_label() {
    QString image = image_path_;
    if (const QString engine = vt::engine_program(); !engine.isEmpty()) {
      const QString generated = generate_miniature(engine, dir_.path());
      QVERIFY2(!generated.isEmpty(), "the engine could not generate from the miniature NV-Generate folder");
      // A label map on the generated grid steers the ControlNet: generate
      // --label writes the pair (X_image.nii.gz + X_label.nii.gz) the viewer opens.
      const Volume volume = read_volume(generated.toStdString());
      const QString mask = vt::write_nifti(box_labels(volume), dir_.filePath("mask.nii.gz"));
      QProcess p;
      p.start(engine, {"generate", dir_.filePath("maisi-run"), "--label", mask, "--output-dir", dir_.filePath("paired")});
      QVERIFY2(p.waitForFinished(120000) && p.exitCode() == 0, p.readAllStandardError().constData());
      image = dir_.filePath("paired/sample_seed0_rank0_image.nii.gz");
      QVERIFY2(QFileInfo::exists(dir_.filePath("paired/sample_seed0_rank0_label.nii.gz")), "generate --label wrote no label beside the image");
    } else {
      qWarning("medsynth-engine not built: the screenshot shows the phantom");
    }
    auto viewer = make_viewer();
    QVERIFY(viewer);
    QVERIFY(open_pair(viewer.get(), image, true));
    viewer->set_label_opacity(0.45);
    QVERIFY(viewer->save_screenshot(ui_output_dir() + "/viewer-label-overlay.png"));
  }
};

QTEST_MAIN(ViewerLabelOverlayTest)
#include "viewer_label_overlay_test.moc"
