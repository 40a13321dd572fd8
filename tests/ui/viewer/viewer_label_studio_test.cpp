// GUI test of the label editor (issue 39.2) under Xvfb (xcb, llvmpipe): a CT
// phantom inside a MAISI run made by import-maisi from the miniature
// NV-Generate folder; the Brush paints liver (1) on one axial slice with real
// mouse events and the overlay shows it; Undo/Redo, the Eraser; Save writes a
// NIfTI on the image's grid that reads back voxel for voxel; a label map
// opened from a file is never overwritten, and unsaved strokes are saved
// when the studio closes; "Generate from this label" runs
// the real engine's generate --label through the launcher and the result
// opens beside the label, and again after an edit with "Regenerate after each
// edit"; a run directory without job.yaml is refused with its name. The
// screenshot is build/test-output/ui/label-studio.png.
#include <QAction>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDoubleSpinBox>
#include <QMouseEvent>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <set>

#include "ui/viewer/label_edit_toolbar.hpp"
#include "ui/viewer/label_map.hpp"
#include "ui/viewer/label_overlay_controller.hpp"
#include "ui/viewer/label_painter.hpp"
#include "ui/viewer/label_studio.hpp"
#include "ui/viewer/slice_view.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "viewer_test_volumes.hpp"
#include "volume/volume_io.hpp"

using namespace medsynth;
using namespace medsynth::ui;
namespace vt = medsynth::viewer_test;

namespace {

constexpr int k_timeout_ms = 60000;
constexpr int k_generate_timeout_ms = 180000;

QByteArray sha256(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

int count_value(const Volume& v, float value) {
  return static_cast<int>(std::count(v.voxels.begin(), v.voxels.end(), value));
}

// A left-button drag through `points` with real mouse events.
void drag(QWidget* view, const QList<QPointF>& points) {
  auto send = [view](QEvent::Type type, QPointF at, Qt::MouseButton button, Qt::MouseButtons buttons) {
    QMouseEvent event(type, at, view->mapToGlobal(at), button, buttons, Qt::NoModifier);
    QCoreApplication::sendEvent(view, &event);
  };
  send(QEvent::MouseButtonPress, points.front(), Qt::LeftButton, Qt::LeftButton);
  for (qsizetype i = 1; i < points.size(); ++i) send(QEvent::MouseMove, points[i], Qt::NoButton, Qt::LeftButton);
  send(QEvent::MouseButtonRelease, points.back(), Qt::LeftButton, Qt::NoButton);
}

QColor color_at(const QImage& frame, QPointF at) {
  double r = 0, g = 0, b = 0;
  int n = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const QRgb p = frame.pixel(int(at.x()) + dx, int(at.y()) + dy);
      r += qRed(p), g += qGreen(p), b += qBlue(p), ++n;
    }
  return QColor(int(r / n), int(g / n), int(b / n));
}

}  // namespace

class ViewerLabelStudioTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString engine_, run_dir_, image_path_;

  std::unique_ptr<LabelStudio> make_studio() {
    auto studio = std::make_unique<LabelStudio>(nullptr, engine_);
    studio->resize(1300, 760);
    studio->show();
    if (!QTest::qWaitForWindowExposed(studio.get())) return nullptr;
    return studio;
  }

  bool open_image(LabelStudio* studio, const QString& label = {}) {
    QSignalSpy loaded(studio->editor(), &VolumeViewerWidget::volume_loaded);
    QSignalSpy labels(studio->editor(), &VolumeViewerWidget::label_map_loaded);
    studio->open(image_path_, label);
    if (!QTest::qWaitFor([&] { return loaded.count() > 0; }, k_timeout_ms)) return false;
    return label.isEmpty() || QTest::qWaitFor([&] { return labels.count() > 0; }, k_timeout_ms);
  }

  // Picks a tool and a label as a user does: the toolbar's action and box.
  static void choose(LabelStudio* studio, LabelTool tool, int label) {
    LabelEditToolbar* bar = studio->toolbar();
    const int row = bar->label_box()->findData(label);
    bar->label_box()->setCurrentIndex(row);
    emit bar->label_box()->activated(row);
    bar->tool_action(tool)->trigger();
  }

  // A horizontal stroke across the body in the axial view, at the crosshair's slice.
  static QList<QPointF> body_stroke(LabelStudio* studio) {
    SliceView* axial = studio->editor()->slice_view(SliceOrientation::axial);
    const double z = studio->editor()->cursor()[2];
    QList<QPointF> points;
    for (double x = -10.0; x <= 10.0; x += 2.5) points << axial->camera().world_to_display(Vec3{x, 4.0, z});
    return points;
  }

 private slots:
  void initTestCase() {
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
      QSKIP("QOpenGLWidget needs a GL platform: run under Xvfb with QT_QPA_PLATFORM=xcb");
    QVERIFY(dir_.isValid());
    engine_ = vt::engine_program();
    QVERIFY2(!engine_.isEmpty(), "medsynth-engine is not built (set MEDSYNTH_ENGINE)");
    run_dir_ = dir_.filePath("maisi-run");
    QProcess import;
    import.start(engine_,
                 {"import-maisi", QStringLiteral(MEDSYNTH_SOURCE_DIR "/tests/engine/diffusion/data/maisi_folder"),
                  "--out", run_dir_});
    QVERIFY2(import.waitForFinished(120000) && import.exitCode() == 0, import.readAllStandardError().constData());
    // The image to label lies in the run's output, as a generated one does:
    // the studio picks that run to generate with.
    QDir().mkpath(run_dir_ + "/output");
    image_path_ = vt::write_nifti(vt::ct_phantom(), run_dir_ + "/output/phantom_ct.nii.gz");
  }

  void paint_undo_erase_save_and_generate_from_the_label() {
    auto studio = make_studio();
    QVERIFY(studio);
    QVERIFY(open_image(studio.get()));
    QCOMPARE(studio->run_dir(), QDir(run_dir_).absolutePath());
    LabelOverlayController* overlay = studio->editor()->label_overlay();
    QVERIFY(!overlay->has_labels());

    choose(studio.get(), LabelTool::brush, 1);
    studio->toolbar()->radius_box()->setValue(2.0);
    QCOMPARE(studio->painter()->tool(), LabelTool::brush);
    QCOMPARE(studio->painter()->label(), 1);
    SliceView* axial = studio->editor()->slice_view(SliceOrientation::axial);
    QVERIFY(axial->painting());
    const QList<QPointF> stroke = body_stroke(studio.get());
    drag(axial, stroke);

    // A new map on the image's grid, painted on the crosshair's slice only.
    QVERIFY(overlay->has_labels());
    const auto labels = overlay->labels();
    const int painted = count_value(*labels, 1.0f);
    QVERIFY2(painted >= 21 * 3, qPrintable(QString::number(painted)));  // a 20 mm line, 2 mm brush: >= 3 rows
    const Volume image = read_volume(image_path_.toStdString());
    QVERIFY(same_grid(image, *labels));
    const std::size_t slice =
        static_cast<std::size_t>(studio->editor()->probe(SliceOrientation::axial, stroke.front()).index[2]);
    for (std::size_t k = 0; k < labels->size[2]; ++k)
      for (std::size_t j = 0; j < labels->size[1]; ++j)
        for (std::size_t i = 0; i < labels->size[0]; ++i)
          if (labels->at(i, j, k) != 0.0f) QCOMPARE(k, slice);
    QVERIFY(overlay->is_modified());
    QVERIFY(studio->toolbar()->undo_action()->isEnabled());
    // The overlay draws it: label 1 is red over the grey body.
    const QColor drawn = color_at(axial->grabFramebuffer(), stroke[4]);
    QVERIFY2(drawn.red() > drawn.green() + 40, qPrintable(drawn.name()));

    studio->toolbar()->undo_action()->trigger();
    QCOMPARE(count_value(*overlay->labels(), 1.0f), 0);
    QVERIFY(studio->toolbar()->redo_action()->isEnabled());
    studio->toolbar()->redo_action()->trigger();
    QCOMPARE(count_value(*overlay->labels(), 1.0f), painted);

    choose(studio.get(), LabelTool::eraser, 1);
    drag(axial, {stroke.front()});
    const int after_erase = count_value(*overlay->labels(), 1.0f);
    QVERIFY2(after_erase < painted && after_erase > 0, qPrintable(QString::number(after_erase)));

    // Save: a new file beside the image (there was none), read back exactly.
    studio->toolbar()->save_action()->trigger();
    const QString saved = edited_label_path({}, image_path_);
    QVERIFY2(QFileInfo::exists(saved), qPrintable(studio->status_text()));
    QVERIFY(!overlay->is_modified());
    const Volume back = read_volume(saved.toStdString());
    QVERIFY(same_grid(back, image));
    QVERIFY(back.voxels == overlay->labels()->voxels);
    QCOMPARE(overlay->path(), saved);

    // Generate from this label: the real engine, through the launcher.
    QSignalSpy generated(studio.get(), &LabelStudio::generated);
    QSignalSpy failed(studio.get(), &LabelStudio::generation_failed);
    studio->toolbar()->generate_action()->trigger();
    QVERIFY2(QTest::qWaitFor([&] { return generated.count() + failed.count() > 0; }, k_generate_timeout_ms),
             qPrintable(studio->status_text()));
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.front().front().toString()));
    const QString first = generated.front().at(0).toString();
    QVERIFY2(first.startsWith(QDir(run_dir_).absolutePath() + "/output/from-phantom_ct-painted_label-"),
             qPrintable(first));
    VolumeViewerWidget* result = studio->result_viewer();
    QVERIFY(QTest::qWaitFor([&] { return result->has_volume() && result->has_label_map(); }, k_timeout_ms));
    QVERIFY(result->isVisible());
    QVERIFY(same_grid(*result->volume(), image));
    // The generated pair's label is the painted map.
    const Volume result_label = read_volume(generated.front().at(1).toString().toStdString());
    QVERIFY(result_label.voxels == back.voxels);

    // Again after an edit: with "Regenerate after each edit" a stroke saves
    // and generates, and the new result replaces the old beside the label.
    studio->toolbar()->regenerate_action()->setChecked(true);
    choose(studio.get(), LabelTool::brush, 200);  // the body envelope
    drag(axial, {axial->camera().world_to_display(Vec3{0.0, -6.0, studio->editor()->cursor()[2]})});
    QVERIFY(QTest::qWaitFor([&] { return generated.count() + failed.count() > 1; }, k_generate_timeout_ms));
    QVERIFY(failed.isEmpty());
    const QString second = generated.at(1).at(0).toString();
    QVERIFY(second != first);
    QVERIFY(QTest::qWaitFor([&] { return result->volume_label() == second && result->has_label_map(); }, k_timeout_ms));
    // Saved (to the same file: the editor's own) before generating.
    QCOMPARE(overlay->path(), saved);
    QCOMPARE(count_value(read_volume(saved.toStdString()), 200.0f), count_value(*overlay->labels(), 200.0f));
    QVERIFY(count_value(*overlay->labels(), 200.0f) > 0);

    studio->editor()->set_label_opacity(0.5);
    result->set_label_opacity(0.35);
    QTest::qWait(200);
    const QString dir = QStringLiteral(MEDSYNTH_UI_TEST_OUTPUT);
    QDir().mkpath(dir);
    QVERIFY(studio->grab().save(dir + "/label-studio.png"));
  }

  // Issue 55: the sphere tool paints a ball (several slices from one click
  // in the axial view), and "Fill between slices" fills the slices between
  // two painted discs, as one undo step.
  void the_sphere_brush_and_fill_between_slices_edit_in_3d() {
    auto studio = make_studio();
    QVERIFY(studio);
    QVERIFY(open_image(studio.get()));
    LabelOverlayController* overlay = studio->editor()->label_overlay();
    SliceView* axial = studio->editor()->slice_view(SliceOrientation::axial);
    // The axial slices that hold `value`.
    const auto slices_with = [&](float value) {
      std::set<std::size_t> slices;
      const auto labels = overlay->labels();
      for (std::size_t k = 0; k < labels->size[2]; ++k)
        for (std::size_t j = 0; j < labels->size[1]; ++j)
          for (std::size_t i = 0; i < labels->size[0]; ++i)
            if (labels->at(i, j, k) == value) slices.insert(k);
      return slices;
    };
    choose(studio.get(), LabelTool::sphere, 1);
    studio->toolbar()->radius_box()->setValue(4.0);
    const Vec3 centre = studio->editor()->cursor();
    drag(axial, {axial->camera().world_to_display(Vec3{0.0, 4.0, centre[2]})});
    QVERIFY(overlay->has_labels());
    const auto ball = slices_with(1.0f);
    QVERIFY2(ball.size() >= 3, qPrintable(QString::number(ball.size())));  // a ball, not a disc

    // Two discs of label 5, six slices apart, then the fill between them.
    choose(studio.get(), LabelTool::brush, 5);
    studio->toolbar()->radius_box()->setValue(3.0);
    const double dz = overlay->labels()->spacing[2];
    for (double z : {centre[2] - 3.0 * dz, centre[2] + 3.0 * dz}) {
      studio->editor()->set_cursor(Vec3{centre[0], centre[1], z});
      drag(axial, {axial->camera().world_to_display(Vec3{-10.0, 4.0, z})});
    }
    QCOMPARE(int(slices_with(5.0f).size()), 2);
    auto* fill = studio->toolbar()->findChild<QAction*>(QStringLiteral("fill_between_slices"));
    QVERIFY(fill);
    fill->trigger();
    QCOMPARE(int(slices_with(5.0f).size()), 7);  // the two discs and the five slices between
    QCOMPARE(slices_with(1.0f), ball);           // the ball of another label is kept
    studio->toolbar()->undo_action()->trigger();
    QCOMPARE(int(slices_with(5.0f).size()), 2);  // the fill was one step of its own
  }

  // Issue 55 item 2: "Regenerate this region" makes the painted ball of the
  // image again through the real engine (generate --inpaint): every voxel
  // farther than the engine's margin (2 voxels) from the ball is the
  // image's, bit for bit, and the ball's voxels are new.
  void regenerate_this_region_keeps_every_voxel_outside_it() {
    auto studio = make_studio();
    QVERIFY(studio);
    QVERIFY(open_image(studio.get()));
    SliceView* axial = studio->editor()->slice_view(SliceOrientation::axial);
    choose(studio.get(), LabelTool::sphere, 1);
    studio->toolbar()->radius_box()->setValue(5.0);
    const Vec3 centre = studio->editor()->cursor();
    drag(axial, {axial->camera().world_to_display(Vec3{0.0, 4.0, centre[2]})});
    QVERIFY(count_value(*studio->editor()->label_overlay()->labels(), 1.0f) > 0);

    QSignalSpy generated(studio.get(), &LabelStudio::generated);
    QSignalSpy failed(studio.get(), &LabelStudio::generation_failed);
    studio->toolbar()->regenerate_region_action()->trigger();
    QVERIFY2(QTest::qWaitFor([&] { return generated.count() + failed.count() > 0; }, k_generate_timeout_ms),
             qPrintable(studio->status_text()));
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.front().front().toString()));
    const Volume image = read_volume(image_path_.toStdString());
    const Volume result = read_volume(generated.front().at(0).toString().toStdString());
    const Volume region = read_volume(generated.front().at(1).toString().toStdString());
    QVERIFY(same_grid(image, result) && same_grid(image, region));
    const auto near_region = [&](std::size_t i, std::size_t j, std::size_t k) {
      for (std::size_t z = k >= 2 ? k - 2 : 0; z <= std::min(k + 2, region.size[2] - 1); ++z)
        for (std::size_t y = j >= 2 ? j - 2 : 0; y <= std::min(j + 2, region.size[1] - 1); ++y)
          for (std::size_t x = i >= 2 ? i - 2 : 0; x <= std::min(i + 2, region.size[0] - 1); ++x)
            if (region.at(x, y, z) == 1.0f) return true;
      return false;
    };
    int outside_changed = 0, inside_changed = 0, inside = 0;
    for (std::size_t k = 0; k < image.size[2]; ++k)
      for (std::size_t j = 0; j < image.size[1]; ++j)
        for (std::size_t i = 0; i < image.size[0]; ++i) {
          const std::size_t at = image.index(i, j, k);
          const bool same = std::memcmp(&image.voxels[at], &result.voxels[at], sizeof(float)) == 0;
          if (region.at(i, j, k) == 1.0f) {
            ++inside;
            inside_changed += same ? 0 : 1;
          } else if (!near_region(i, j, k)) {
            outside_changed += same ? 0 : 1;
          }
        }
    QCOMPARE(outside_changed, 0);
    QVERIFY2(inside_changed > inside / 2, qPrintable(QStringLiteral("%1 of %2").arg(inside_changed).arg(inside)));
    VolumeViewerWidget* shown = studio->result_viewer();
    QVERIFY(QTest::qWaitFor([&] { return shown->has_volume(); }, k_timeout_ms));
    QVERIFY(QFileInfo::exists(QString(generated.front().at(0).toString())
                                  .replace(QStringLiteral("_image.nii.gz"), QStringLiteral("_inpaint.json"))));
  }

  void a_label_map_opened_from_a_file_is_never_overwritten() {
    const Volume image = read_volume(image_path_.toStdString());
    Volume given = image;
    std::fill(given.voxels.begin(), given.voxels.end(), 0.0f);
    for (std::size_t i = 10; i < 20; ++i) given.at(i, 20, 16) = 3.0f;
    const QString original = vt::write_nifti(given, dir_.filePath("given_label.nii.gz"));
    const QByteArray before = sha256(original);

    auto studio = make_studio();
    QVERIFY(studio);
    QVERIFY(open_image(studio.get(), original));
    LabelOverlayController* overlay = studio->editor()->label_overlay();
    QCOMPARE(overlay->path(), original);
    choose(studio.get(), LabelTool::brush, 5);
    drag(studio->editor()->slice_view(SliceOrientation::axial), body_stroke(studio.get()));
    QVERIFY(overlay->is_modified());
    QVERIFY(!studio->save().isEmpty());
    QCOMPARE(sha256(original), before);
    const QString edited = dir_.filePath("given_label-edited.nii.gz");
    QCOMPARE(overlay->path(), edited);
    const Volume back = read_volume(edited.toStdString());
    QCOMPARE(count_value(back, 3.0f) + count_value(back, 5.0f) > 10, true);
    QVERIFY(count_value(back, 5.0f) > 0);

    // Closed with an unsaved stroke, the studio saves it (to its own file).
    choose(studio.get(), LabelTool::brush, 7);
    drag(studio->editor()->slice_view(SliceOrientation::axial), {body_stroke(studio.get()).front()});
    QVERIFY(overlay->is_modified());
    studio.reset();
    QVERIFY(count_value(read_volume(edited.toStdString()), 7.0f) > 0);
    QCOMPARE(sha256(original), before);
  }

  void a_folder_that_is_not_a_run_is_refused_by_name() {
    auto studio = make_studio();
    QVERIFY(studio);
    QVERIFY(open_image(studio.get()));
    choose(studio.get(), LabelTool::brush, 1);
    drag(studio->editor()->slice_view(SliceOrientation::axial), body_stroke(studio.get()));
    const QString not_a_run = dir_.filePath("not-a-run");
    QDir().mkpath(not_a_run);
    studio->set_run_dir(not_a_run);
    QSignalSpy failed(studio.get(), &LabelStudio::generation_failed);
    studio->generate();
    QCOMPARE(failed.count(), 1);
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains("run_dir:") && message.contains(not_a_run) && message.contains("job.yaml"),
             qPrintable(message));
    QVERIFY(studio->status_text().contains(not_a_run));
    QVERIFY(!studio->result_viewer()->has_volume());
  }
};

QTEST_MAIN(ViewerLabelStudioTest)
#include "viewer_label_studio_test.moc"
