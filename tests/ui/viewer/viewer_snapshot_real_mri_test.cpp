// `medsynth snapshot VOLUME PNG`, the console's headless verb, run as a real
// process under Xvfb on real MR data: nibabel's public anatomical.nii (a
// 33x41x25 T1 written by nibabel, not by us). The PNG is written and shows
// the anatomy: each slice quadrant has many grey levels, a spread of
// intensities and tissue over much of its area, and the 3D quadrant is not
// blank. A NRRD copy written by ITK snapshots to the same picture. The data
// comes from Debian's python3-nibabel (installer/packages/test.txt;
// MEDSYNTH_NIBABEL_DATA overrides the folder); without it the test skips,
// saying why.
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include "itk_fixtures.hpp"
#include "viewer_test_volumes.hpp"
#include "volume/volume_io.hpp"

namespace vt = medsynth::viewer_test;

namespace {

QString nibabel_data() {
  const QString env = qEnvironmentVariable("MEDSYNTH_NIBABEL_DATA");
  return env.isEmpty() ? QStringLiteral("/usr/lib/python3/dist-packages/nibabel/tests/data") : env;
}

struct Run {
  int exit_code = -1;
  QString err;
};

// The console binary, as users run it.
Run snapshot(const QString& volume, const QString& png) {
  QProcess p;
  p.setProgram(QStringLiteral(MEDSYNTH_CONSOLE_BINARY));
  p.setArguments({QStringLiteral("snapshot"), volume, png});
  p.start();
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    return {-1, QStringLiteral("did not finish in 120 s")};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
}

int distinct_greys(const QImage& image) {
  QSet<int> levels;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QRgb c = image.pixel(x, y);
      levels.insert((qRed(c) + qGreen(c) + qBlue(c)) / 3);
    }
  return static_cast<int>(levels.size());
}

// Share of pixels whose grey level is above `threshold`.
double share_above(const QImage& image, int threshold) {
  qint64 above = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QRgb c = image.pixel(x, y);
      if ((qRed(c) + qGreen(c) + qBlue(c)) / 3 > threshold) ++above;
    }
  return double(above) / (double(image.width()) * image.height());
}

}  // namespace

class ViewerSnapshotRealMriTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString anatomical_;

 private slots:
  void initTestCase() {
    anatomical_ = nibabel_data() + QStringLiteral("/anatomical.nii");
    if (!QFile::exists(anatomical_))
      QSKIP(qPrintable(anatomical_ + QStringLiteral(" is absent (install python3-nibabel)")));
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("needs an X display: run under tests/support/run_with_xvfb.sh");
    QVERIFY(dir_.isValid());
  }

  void snapshot_of_anatomical_nii_shows_the_anatomy() {
    const QString out = vt::test_output_dir() + QStringLiteral("/snapshot-anatomical-mri.png");
    QFile::remove(out);
    const Run r = snapshot(anatomical_, out);
    QVERIFY2(r.exit_code == 0, qPrintable(QStringLiteral("exit %1: %2").arg(r.exit_code).arg(r.err)));
    const QImage image(out);
    QVERIFY2(!image.isNull(), "no readable PNG was written");
    QCOMPARE(image.size(), QSize(1024, 1024));
    const QSize half(512, 512);
    const QRect quadrants[3] = {{QPoint(0, 0), half}, {QPoint(512, 0), half}, {QPoint(0, 512), half}};
    const char* names[3] = {"axial", "coronal", "sagittal"};
    for (int q = 0; q < 3; ++q) {
      const QImage slice = image.copy(quadrants[q]);
      const double spread = vt::image_stddev(slice);
      const int greys = distinct_greys(slice);
      const double tissue = share_above(slice, 40);
      const QString what = QStringLiteral("%1 quadrant: stddev %2, %3 grey levels, %4 of it above grey 40")
                               .arg(QLatin1String(names[q]))
                               .arg(spread)
                               .arg(greys)
                               .arg(tissue);
      qInfo().noquote() << what;
      // A blank, flat or two-tone picture fails these; an MR slice (continuous
      // intensities, tissue over most of the frame) passes them.
      QVERIFY2(spread > 20.0, qPrintable(what));
      QVERIFY2(greys >= 64, qPrintable(what));
      QVERIFY2(tissue > 0.3 && tissue < 0.95, qPrintable(what));
    }
    const double rendering = vt::image_stddev(image.copy(QRect(QPoint(512, 512), half)));
    QVERIFY2(rendering > 8.0, qPrintable(QStringLiteral("3D quadrant: stddev %1").arg(rendering)));
  }

  void a_nrrd_copy_written_by_itk_snapshots_to_the_same_picture() {
    const QString nrrd = dir_.filePath(QStringLiteral("anatomical.nrrd"));
    medsynth::test::write_float_with_itk(medsynth::read_volume(anatomical_.toStdString()), nrrd.toStdString(),
                                         medsynth::test::TextHeaderFormat::nrrd);
    const QString from_nifti = dir_.filePath(QStringLiteral("nifti.png"));
    const QString from_nrrd = dir_.filePath(QStringLiteral("nrrd.png"));
    Run r = snapshot(anatomical_, from_nifti);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    r = snapshot(nrrd, from_nrrd);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const QImage a(from_nifti), b(from_nrrd);
    QCOMPARE(b.size(), a.size());
    // Slices only: the 3D quadrant is software-rendered and may differ in a few pixels.
    const QRect slices[3] = {{0, 0, 512, 512}, {512, 0, 512, 512}, {0, 512, 512, 512}};
    for (const QRect& q : slices) {
      const double d = vt::mean_abs_difference(a.copy(q), b.copy(q));
      QVERIFY2(d < 0.5, qPrintable(QStringLiteral("mean grey difference %1 in quadrant at (%2, %3)").arg(d).arg(q.x()).arg(q.y())));
    }
  }
};

QTEST_GUILESS_MAIN(ViewerSnapshotRealMriTest)
#include "viewer_snapshot_real_mri_test.moc"
