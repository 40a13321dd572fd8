// Issue 20.2, in the console: a memorization flagged by `evaluate` opens side
// by side. The whole MainWindow under a real X server (GL viewers), on the
// evaluated fixture run (tests/app/fixtures/evaluated) whose evaluation.json
// names its volumes by the absolute paths of the run that made it; the test
// rewrites them to its own folder and writes the two volumes there (the
// planted image is a copy of its training case, as in the fixture).
// Opening the run, choosing the Evaluate tab's flagged pair and "Compare
// side by side" must add a compare tab holding exactly that pair, with a
// zero difference, drawn: the screenshot's two halves are not blank.
#include <QDir>
#include <QFile>
#include <QListWidget>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "ui/monitor/evaluation_view.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/shell/command_line.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/viewer/compare_widget.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"
#include "ui_test_support.hpp"
#include "viewer_test_volumes.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

// Where tests/app/fixtures/make_fixtures.sh made the evaluated run.
const QString k_fixture_run = QStringLiteral("/tmp/tmp.f8yAbrAmht/evaluated/ldm-tiny-20261125-153902");

QString fixture(const QString& name) { return QStringLiteral(MEDSYNTH_APP_FIXTURES "/evaluated/") + name; }

bool copy_rewritten(const QString& from, const QString& to, const QString& run_dir) {
  QFile in(from);
  if (!in.open(QIODevice::ReadOnly)) return false;
  QByteArray text = in.readAll();
  text.replace(k_fixture_run.toUtf8(), run_dir.toUtf8());
  QDir().mkpath(QFileInfo(to).absolutePath());
  QFile out(to);
  return out.open(QIODevice::WriteOnly) && out.write(text) == text.size();
}

}  // namespace

class TestCompareHandoff : public QObject {
  Q_OBJECT

 private slots:
  void a_flagged_pair_opens_side_by_side() {
    QTemporaryDir dir;
    const QString run = dir.filePath(QStringLiteral("ldm-tiny-evaluated"));
    for (const char* file : {"events.jsonl", "job.yaml", "evaluation/evaluation.json", "evaluation/evaluation.txt"})
      QVERIFY2(copy_rewritten(fixture(QLatin1String(file)), run + QLatin1Char('/') + QLatin1String(file), run), file);

    medsynth::app::SettingsStore settings(dir.filePath(QStringLiteral("settings.ini")));
    MainWindow window(&settings);
    CommandLineOptions options;
    options.open_run = run;
    QVERIFY(window.apply_command_line(options));
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    RunMonitorWidget* monitor = window.current_monitor();
    QVERIFY(monitor);
    EvaluationView* view = monitor->evaluation_view();
    QTRY_VERIFY_WITH_TIMEOUT(view->report().has_value(), 10000);
    auto* flagged = view->findChild<QListWidget*>(QStringLiteral("flagged_pairs"));
    QVERIFY(flagged);
    QCOMPARE(flagged->count(), 1);

    // The pair the report names, now under this test's folder: write them.
    QString generated, training;
    for (const auto& c : view->report()->memorization)
      if (c.flagged) generated = c.generated, training = c.nearest;
    QVERIFY2(generated.startsWith(run) && training.startsWith(run), qPrintable(generated + " / " + training));
    QDir().mkpath(QFileInfo(generated).absolutePath());
    QDir().mkpath(QFileInfo(training).absolutePath());
    viewer_test::write_nifti(viewer_test::ct_phantom(), generated);
    viewer_test::write_nifti(viewer_test::ct_phantom(), training);

    const int tabs_before = window.tabs()->count();
    flagged->setCurrentRow(0);
    auto* compare_button = view->findChild<QPushButton*>(QStringLiteral("compare_flagged"));
    QVERIFY(compare_button && compare_button->isEnabled());
    compare_button->click();
    QTRY_COMPARE_WITH_TIMEOUT(window.tabs()->count(), tabs_before + 1, 10000);
    auto* compare = qobject_cast<CompareWidget*>(window.tabs()->currentWidget());
    if (!compare) compare = window.tabs()->currentWidget()->findChild<CompareWidget*>();
    QVERIFY2(compare, "the new tab is not a compare view");
    QTRY_VERIFY_WITH_TIMEOUT(compare->difference_available(), 20000);
    QVERIFY2(compare->viewer_a()->volume_label().contains(QFileInfo(generated).fileName()),
             qPrintable(compare->viewer_a()->volume_label()));
    QVERIFY2(compare->viewer_b()->volume_label().contains(QFileInfo(training).fileName()),
             qPrintable(compare->viewer_b()->volume_label()));
    QCOMPARE(compare->difference_max_abs(), 0.0);  // a copy: what the flag says

    QDir().mkpath(test::output_dir());
    const QString shot = test::output_dir() + QStringLiteral("/memorization-compare.png");
    QString error;
    QVERIFY2(window.save_screenshot(shot, &error), qPrintable(error));
    const QImage image(shot);
    QVERIFY(!image.isNull());
    const QRect area = compare->rect().translated(compare->mapTo(&window, QPoint(0, 0)));
    const QImage left = image.copy(area.left(), area.top(), area.width() / 2, area.height());
    const QImage right = image.copy(area.left() + area.width() / 2, area.top(), area.width() / 2, area.height());
    QVERIFY2(viewer_test::image_stddev(left) > 10.0, "the generated volume's half is blank");
    QVERIFY2(viewer_test::image_stddev(right) > 10.0, "the training case's half is blank");
  }
};

QTEST_MAIN(TestCompareHandoff)
#include "test_compare_handoff.moc"
