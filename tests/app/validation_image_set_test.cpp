// The run view's validation images: the newest step's three PNGs are picked
// from a run's artifacts, whatever order they came in, and other artifacts
// (reconstructions, a stray PNG) are not taken for them.
#include <QTest>

#include "app/runs/validation_image_set.hpp"

using namespace medsynth::app;

class ValidationImageSetTest : public QObject {
  Q_OBJECT

 private slots:
  void the_plane_comes_from_the_engines_file_name() {
    QCOMPARE(validation_image_plane(QStringLiteral("/r/output/val-images/step000100-axial.png")),
             QStringLiteral("axial"));
    QCOMPARE(validation_image_plane(QStringLiteral("/r/output/val-images/step000100-sagittal.png")),
             QStringLiteral("sagittal"));
    QVERIFY(validation_image_plane(QStringLiteral("/r/output/notes.png")).isEmpty());
    QVERIFY(validation_image_plane(QStringLiteral("/r/output/step000100-axial.nii.gz")).isEmpty());
  }

  void the_latest_step_wins() {
    const QString dir = QStringLiteral("/r/output/val-images/");
    const QString kind = QString::fromLatin1(k_validation_image_kind);
    QVector<Artifact> artifacts{
        {dir + "step000004-axial.png", kind, 4},
        {dir + "step000004-coronal.png", kind, 4},
        {dir + "step000008-axial.png", kind, 8},
        {QStringLiteral("/r/output/reconstruction-val0.nii.gz"), QStringLiteral("reconstruction"), 9},
        {dir + "step000008-coronal.png", kind, 8},
        {dir + "step000008-sagittal.png", kind, 8},
        {dir + "step000004-sagittal.png", kind, 4},  // a late line of an older step
    };
    const ValidationImageSet set = latest_validation_images(artifacts);
    QCOMPARE(set.step, qint64(8));
    QCOMPARE(set.paths.size(), 3);
    QCOMPARE(set.paths.value(QStringLiteral("sagittal")), dir + "step000008-sagittal.png");
    QCOMPARE(set.paths.value(QStringLiteral("axial")), dir + "step000008-axial.png");
  }

  void a_run_without_images_has_an_empty_set() {
    const ValidationImageSet set =
        latest_validation_images({{QStringLiteral("/r/output/x.nii.gz"), QStringLiteral("reconstruction"), 3}});
    QVERIFY(set.empty());
    QCOMPARE(set.step, qint64(-1));
  }
};

QTEST_GUILESS_MAIN(ValidationImageSetTest)
#include "validation_image_set_test.moc"
