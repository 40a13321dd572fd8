// Issue 23.5: a finished ldm pipeline run (a real engine run:
// tests/app/fixtures/ldm, made by make_fixtures.sh with its three generated
// images) opened as `medsynth --open-run RUN_DIR` does it: the whole
// MainWindow, the same command line. The monitor shows 100 %, every stage
// full, a chart with data for each training stage's loss, PSNR/SSIM and
// diffusion validation loss, no "unusable lines" warning, and the Samples tab
// lists the generated images. The window is saved as
// build/test-output/ui/ldm-run-open.png. Needs X (the viewer's GL widgets):
// runs under tests/support/run_with_xvfb.sh. Then the same run followed
// while its events are written: the Samples tab fills during generate.
#include <QProgressBar>
#include <QTemporaryDir>
#include <QtTest>

#include "app/session/launch_coordinator.hpp"
#include "app/session/run_controller.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/monitor/stage_sections.hpp"
#include "ui/shell/command_line.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/viewer/samples_panel.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

class TestLdmRunOpen : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;

  // The ldm fixture run, relocated to tmp_/name; "" on failure (then the caller fails).
  QString ldm_run(const QString& name) {
    const QString run_dir = tmp_.filePath(name);
    QString error;
    if (!test::relocate_fixture_run(QStringLiteral(MEDSYNTH_APP_FIXTURES "/ldm"), run_dir, &error)) {
      qWarning("%s", qPrintable(error));
      return {};
    }
    return run_dir;
  }

 private slots:
  void a_finished_ldm_run_shows_every_stage_and_is_saved_as_a_png() {
    const QString run_dir = ldm_run(QStringLiteral("ldm-tiny-run"));
    QVERIFY(!run_dir.isEmpty());

    const CommandLineResult parsed =
        CommandLine().parse({QStringLiteral("medsynth"), QStringLiteral("--open-run"), run_dir,
                             QStringLiteral("--settings"), tmp_.filePath("s1.ini")});
    QVERIFY2(parsed.ok(), qPrintable(parsed.error));
    medsynth::app::SettingsStore settings(parsed.options.settings_file);
    MainWindow window(&settings);
    window.resize(1600, 1000);
    QVERIFY(window.apply_command_line(parsed.options));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    QCOMPARE(window.coordinator()->runs().size(), 1);
    app::RunController* run = window.coordinator()->runs().front();
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->status(), app::RunStatus::finished, 20000);
    RunMonitorWidget* monitor = window.monitor_for(run);
    QVERIFY(monitor);
    monitor->refresh_now();

    QProgressBar* overall = monitor->progress_bar();
    QCOMPARE(overall->value(), overall->maximum());
    QCOMPARE(overall->maximum(), 24);  // 12 autoencoder + 12 diffusion steps
    QVERIFY2(monitor->garbage_text().isEmpty(), qPrintable(monitor->garbage_text()));
    QCOMPARE(run->model()->reader_stats().problems(), 0);

    StageSections* stages = monitor->stage_sections();
    QVERIFY(stages->isVisible());
    QCOMPARE(stages->stage_names(), (QStringList{"autoencoder", "encode", "diffusion", "generate", "evaluate"}));
    for (const QString& stage : stages->stage_names()) {
      QProgressBar* bar = stages->progress_bar(stage);
      QVERIFY2(bar && bar->value() == bar->maximum() && bar->maximum() > 0, qPrintable(stage));
    }
    QCOMPARE(stages->detail_text(QStringLiteral("generate")), QStringLiteral("3 / 3 images"));
    const QList<QPair<QString, QString>> expected{{"autoencoder", "train/loss"},
                                                  {"autoencoder", "val/psnr"},
                                                  {"autoencoder", "val/ssim"},
                                                  {"diffusion", "train/loss"},
                                                  {"diffusion", "val/diffusion_loss"}};
    for (const auto& [stage, metric] : expected) {
      MetricChartView* chart = stages->chart(stage, metric);
      QVERIFY2(chart, qPrintable(stage + "/" + metric));
      QVERIFY2(chart->isVisible(), qPrintable(stage + "/" + metric));
      QVERIFY2(!chart->displayed_raw_points(0).isEmpty(), qPrintable(stage + "/" + metric));
    }
    QCOMPARE(stages->charts().size(), expected.size());
    // The plain run's fixed charts would stay empty: a pipeline hides them.
    QVERIFY(!monitor->chart(QStringLiteral("train/loss"))->isVisible());

    auto* samples = window.findChild<SamplesPanel*>();
    QVERIFY(samples);
    QCOMPARE(samples->sample_count(), 3);
    QVERIFY(samples->sample_path(2).endsWith(QLatin1String("output/image_seed44_rank0.nii.gz")));

    const QString shot = test::output_dir() + QStringLiteral("/ldm-run-open.png");
    QString error;
    QVERIFY2(window.save_screenshot(shot, &error), qPrintable(error));
    qInfo("screenshot: %s", qPrintable(shot));
  }

  // The same run followed while it is written (a run directory opened from
  // the history, or a cluster run's): the Samples tab lists the first image
  // while the run is still running, and the others as they come.
  void the_samples_tab_fills_while_the_run_is_live() {
    const QString run_dir = ldm_run(QStringLiteral("ldm-tiny-live"));
    QVERIFY(!run_dir.isEmpty());
    QFile events(run_dir + QStringLiteral("/events.jsonl"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    const QByteArray stream = events.readAll();
    events.close();
    const QByteArray volume = QByteArrayLiteral("\"kind\":\"volume\"");
    const qsizetype second_image = stream.lastIndexOf('\n', stream.indexOf(volume, stream.indexOf(volume) + 1)) + 1;
    QVERIFY(second_image > 0);
    QVERIFY(events.open(QIODevice::WriteOnly | QIODevice::Truncate));
    events.write(stream.left(second_image));  // up to the first generated image
    events.close();

    medsynth::app::SettingsStore settings(tmp_.filePath(QStringLiteral("s2.ini")));
    MainWindow window(&settings);
    window.resize(1600, 1000);
    window.show();
    app::RunController* run = window.coordinator()->open_run(run_dir);
    QVERIFY(run);
    auto* samples = window.findChild<SamplesPanel*>();
    QVERIFY(samples);
    QTRY_COMPARE_WITH_TIMEOUT(samples->sample_count(), 1, 20000);
    QCOMPARE(run->model()->status(), app::RunStatus::running);
    RunMonitorWidget* monitor = window.monitor_for(run);
    monitor->refresh_now();
    QCOMPARE(monitor->stage_sections()->detail_text(QStringLiteral("generate")), QStringLiteral("1 / 3 images"));

    QVERIFY(events.open(QIODevice::Append));
    events.write(stream.mid(second_image));  // the other images, evaluate, run_finished
    events.close();
    QTRY_COMPARE_WITH_TIMEOUT(samples->sample_count(), 3, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->status(), app::RunStatus::finished, 20000);
  }
};

QTEST_MAIN(TestLdmRunOpen)
#include "test_ldm_run_open.moc"
