// Unit tests of the label overlay's pure rules (ui/viewer/label_map): the
// fixed colour table, the grid check and the image/label pairing of names.
#include <QtTest>

#include "ui/viewer/label_map.hpp"

using namespace medsynth;
using namespace medsynth::ui;

class ViewerLabelMapTest : public QObject {
  Q_OBJECT

 private slots:
  void zero_negative_and_non_finite_values_are_transparent() {
    QCOMPARE(int(label_slot(0.0f)), 0);
    QCOMPARE(int(label_slot(-3.0f)), 0);
    QCOMPARE(int(label_slot(0.4f)), 0);
    QCOMPARE(int(label_slot(std::numeric_limits<float>::quiet_NaN())), 0);
    QCOMPARE(int(label_slot(std::numeric_limits<float>::infinity())), 0);
  }

  void labels_round_and_values_above_255_repeat_the_table() {
    QCOMPARE(int(label_slot(1.0f)), 1);
    QCOMPARE(int(label_slot(2.6f)), 3);
    QCOMPARE(int(label_slot(255.0f)), 255);
    QCOMPARE(int(label_slot(256.0f)), 1);
    QCOMPARE(int(label_slot(300.0f)), 300 - 255);
  }

  void the_first_labels_are_the_documented_colours_and_all_are_distinct() {
    const Rgb red = label_color(1), green = label_color(2), blue = label_color(3);
    QVERIFY(red[0] > 0.8 && red[1] < 0.2 && red[2] < 0.2);
    QVERIFY(green[1] > 0.6 && green[0] < 0.2);
    QVERIFY(blue[2] > 0.9 && blue[0] < 0.2);
    // Neighbouring labels (adjacent organs) never share a colour.
    for (int i = 1; i < k_label_slots - 1; ++i) {
      const Rgb a = label_color(i), b = label_color(i + 1);
      const double d = std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
      QVERIFY2(d > 0.15, qPrintable(QStringLiteral("labels %1 and %2").arg(i).arg(i + 1)));
      for (double c : a) QVERIFY(c >= 0.0 && c <= 1.0);
    }
  }

  void a_label_map_on_another_grid_is_refused_with_both_names() {
    const Volume image = make_volume({16, 24, 32}, {1.5, 1.5, 2.0});
    Volume label = make_volume({16, 24, 32}, {1.5, 1.5, 2.0});
    QVERIFY(label_grid_mismatch(image, label, "ct_image.nii.gz", "ct_label.nii.gz").isEmpty());
    label.origin[0] += 1e-5;  // float rounding of a NIfTI header: still the same grid
    QVERIFY(label_grid_mismatch(image, label, "a", "b").isEmpty());

    const Volume other_size = make_volume({16, 24, 31}, {1.5, 1.5, 2.0});
    const QString size = label_grid_mismatch(image, other_size, "ct_image.nii.gz", "organs.nii.gz");
    QVERIFY2(size.contains("ct_image.nii.gz") && size.contains("organs.nii.gz"), qPrintable(size));
    QVERIFY2(size.contains("16 x 24 x 31") && size.contains("16 x 24 x 32"), qPrintable(size));

    Volume shifted = image;
    shifted.origin[2] += 4.0;
    QVERIFY(label_grid_mismatch(image, shifted, "a", "b").contains("origin"));
    Volume coarse = image;
    coarse.spacing[0] = 3.0;
    QVERIFY(label_grid_mismatch(image, coarse, "a", "b").contains("spacing"));
    Volume flipped = image;
    flipped.direction[0] = -1.0;
    QVERIFY(label_grid_mismatch(image, flipped, "a", "b").contains("direction"));
  }

  void generated_images_name_their_label_sibling() {
    QCOMPARE(sibling_label_path("/r/output/image_seed0_rank0_image.nii.gz"),
             QStringLiteral("/r/output/image_seed0_rank0_label.nii.gz"));
    QCOMPARE(sibling_label_path("x_image.nii"), QStringLiteral("x_label.nii"));
    QVERIFY(sibling_label_path("/r/output/image_seed0_rank0.nii.gz").isEmpty());
    QVERIFY(sibling_label_path("x_label.nii.gz").isEmpty());
    // The other volume formats pair the same way, keeping the image's extension and case.
    QCOMPARE(sibling_label_path("/d/ct_image.nrrd"), QStringLiteral("/d/ct_label.nrrd"));
    QCOMPARE(sibling_label_path("/d/ct_image.MHA"), QStringLiteral("/d/ct_label.MHA"));
    QCOMPARE(sibling_label_path("/d/ct_image.nhdr"), QStringLiteral("/d/ct_label.nhdr"));
    QVERIFY(sibling_label_path("/d/ct_image.raw").isEmpty());
  }
};

QTEST_GUILESS_MAIN(ViewerLabelMapTest)
#include "viewer_label_map_test.moc"
