// The headless snapshot (snapshot_volume / render_snapshot) under Xvfb, with
// no QApplication and no window shown: a PNG whose four quadrants (axial,
// coronal, sagittal, 3D) are not blank, and clear non-zero exit codes for
// bad inputs, bad options, an unwritable output and a missing display.
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/viewer/snapshot.hpp"
#include "viewer_test_volumes.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

class ViewerSnapshotTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString ct_path_, garbage_path_, truncated_path_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    ct_path_ = vt::write_nifti(vt::ct_phantom(), dir_.filePath(QStringLiteral("ct.nii.gz")));
    garbage_path_ = vt::write_garbage(dir_.filePath(QStringLiteral("garbage.nii.gz")));
    truncated_path_ = vt::write_truncated_copy(ct_path_, dir_.filePath(QStringLiteral("cut.nii.gz")));
  }

  void writes_a_png_with_four_non_blank_quadrants() {
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("needs an X display: run under xvfb-run");
    const QString out = vt::test_output_dir() + QStringLiteral("/snapshot-ct.png");
    QFile::remove(out);
    SnapshotOptions options;
    options.width = 800;
    options.height = 640;
    QCOMPARE(snapshot_volume(ct_path_, out, options), 0);
    const QImage image(out);
    QCOMPARE(image.size(), QSize(800, 640));
    const QSize half(400, 320);
    const QRect quadrants[4] = {{QPoint(0, 0), half}, {QPoint(400, 0), half}, {QPoint(0, 320), half},
                                {QPoint(400, 320), half}};
    const char* names[4] = {"axial", "coronal", "sagittal", "3D"};
    for (int q = 0; q < 4; ++q) {
      const double spread = vt::image_stddev(image.copy(quadrants[q]));
      QVERIFY2(spread > 8.0, qPrintable(QStringLiteral("%1 quadrant: stddev %2").arg(names[q]).arg(spread)));
    }
    // The axial quadrant shows the spine (700 HU, white) below the centre: posterior is down.
    int count = 0;
    const QImage axial = image.copy(quadrants[0]);
    const QPointF spine = vt::bright_centroid(axial, 240, &count);
    QVERIFY(count > 30);
    QVERIFY(spine.y() > axial.height() / 2.0);
  }

  void window_preset_and_render_only_mode() {
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("needs an X display: run under xvfb-run");
    SnapshotOptions lung;
    lung.width = lung.height = 256;
    lung.window_preset = WindowPreset::ct_lung;
    lung.annotations = false;
    const SnapshotResult a = render_snapshot(ct_path_, QString(), lung);
    QCOMPARE(a.exit_code, 0);
    QVERIFY(!a.gl_renderer.isEmpty());
    SnapshotOptions bone = lung;
    bone.window_preset = WindowPreset::ct_bone;
    const SnapshotResult b = render_snapshot(ct_path_, QString(), bone);
    QCOMPARE(b.exit_code, 0);
    QVERIFY(vt::mean_abs_difference(a.image.copy(0, 0, 128, 128), b.image.copy(0, 0, 128, 128)) > 5.0);
  }

  void bad_inputs_give_exit_code_3_and_name_the_file() {
    for (const QString& bad : {garbage_path_, truncated_path_, dir_.filePath(QStringLiteral("missing.nii"))}) {
      const SnapshotResult r = render_snapshot(bad, dir_.filePath(QStringLiteral("never.png")));
      QCOMPARE(r.exit_code, 3);
      QVERIFY2(r.message.contains(QFileInfo(bad).fileName()), qPrintable(r.message));
      QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("never.png"))));
    }
  }

  void bad_options_give_exit_code_2() {
    SnapshotOptions options;
    options.width = 3;
    options.window_level = WindowLevel{0.0, 10.0};
    const SnapshotResult r = render_snapshot(ct_path_, dir_.filePath(QStringLiteral("x.png")), options);
    QCOMPARE(r.exit_code, 2);
    QVERIFY(r.message.contains(QLatin1String("width")));
    QVERIFY(r.message.contains(QLatin1String("window_level.window")));
  }

  void unwritable_output_gives_exit_code_1() {
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("needs an X display: run under xvfb-run");
    SnapshotOptions small;
    small.width = small.height = 128;
    const QString out = dir_.filePath(QStringLiteral("no-such-folder/out.png"));
    const SnapshotResult r = render_snapshot(ct_path_, out, small);
    QCOMPARE(r.exit_code, 1);
    QVERIFY(r.message.contains(out));
  }

  void no_display_gives_exit_code_1_instead_of_aborting() {
    const QByteArray display = qgetenv("DISPLAY");
    qputenv("DISPLAY", ":999");  // no server there
    const SnapshotResult r = render_snapshot(ct_path_, dir_.filePath(QStringLiteral("y.png")));
    qputenv("DISPLAY", display);
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.message.contains(QLatin1String("xvfb-run")), qPrintable(r.message));
  }
};

QTEST_GUILESS_MAIN(ViewerSnapshotTest)
#include "viewer_snapshot_test.moc"
