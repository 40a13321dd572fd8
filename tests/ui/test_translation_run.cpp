// Issue 35: the console following a Fast-DDPM BraTS translation run while
// the engine trains it. The test writes a BraTS-2023-shaped folder of 4
// cases, starts the engine on the shipped template (miniature UNet) on two
// ranks through launch, opens the run directory in the whole window as it is
// written, and waits until the validation charts hold the translated FLAIR's
// PSNR and SSIM. The window is saved as build/test-output/ui/translation-run.png.
// Needs X (the viewer's GL widgets): runs under tests/support/run_with_xvfb.sh.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "app/session/launch_coordinator.hpp"
#include "app/session/run_controller.hpp"
#include "app/settings/settings_store.hpp"
#include "support/brats_cases.hpp"
#include "ui/monitor/metric_chart_view.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/shell/main_window.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

class TestTranslationRun : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;

 private slots:
  void the_console_follows_a_translation_run_and_charts_the_translated_flair() {
    const QString data = tmp_.filePath(QStringLiteral("BraTS2023"));
    medsynth::test::write_brats_folder(data.toStdString(), medsynth::test::BratsNaming::brats2023, 4);
    const QString runs = tmp_.filePath(QStringLiteral("runs"));

    QProcess engine;
    engine.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    engine.start(ui::test::engine_path(),
                 {QStringLiteral("launch"),
                  QStringLiteral("--nproc-per-node"),
                  QStringLiteral("2"),
                  QStringLiteral("train"),
                  ui::test::source_dir() + QStringLiteral("/resources/jobs/fast-ddpm-brats.yaml"),
                  QStringLiteral("--data"),
                  data,
                  QStringLiteral("model.diffusion_unet.channels=[16,32]"),
                  QStringLiteral("model.diffusion_unet.num_res_blocks=[1,1]"),
                  QStringLiteral("model.diffusion_unet.attention_levels=[false,false]"),
                  QStringLiteral("model.diffusion_unet.num_head_channels=[0,0]"),
                  QStringLiteral("model.diffusion_unet.norm_num_groups=4"),
                  QStringLiteral("data.patch_size=[16,16,16]"),
                  QStringLiteral("data.val_fraction=0.25"),
                  QStringLiteral("data.num_workers=0"),
                  QStringLiteral("training.max_steps=300"),
                  QStringLiteral("training.gradient_accumulation_steps=1"),
                  QStringLiteral("training.lr=1e-3"),
                  QStringLiteral("training.val_every_steps=25"),
                  QStringLiteral("training.val_max_volumes=1"),
                  QStringLiteral("output.log_every_steps=5"),
                  QStringLiteral("--runs-dir"),
                  runs,
                  QStringLiteral("--quiet")});
    QVERIFY(engine.waitForStarted());

    // The run directory appears once the engine has validated the job.
    QString run_dir;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const QStringList dirs = QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
          if (!dirs.isEmpty()) run_dir = QDir(runs).filePath(dirs.front());
          return !run_dir.isEmpty() && QFile::exists(run_dir + QStringLiteral("/events.jsonl"));
        }(),
        60000);

    medsynth::app::SettingsStore settings(tmp_.filePath(QStringLiteral("settings.ini")));
    MainWindow window(&settings);
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    app::RunController* run = window.coordinator()->open_run(run_dir);
    QVERIFY(run);
    RunMonitorWidget* monitor = window.monitor_for(run);
    QVERIFY(monitor);

    // Followed live: the validation charts fill with the translated FLAIR's scores.
    MetricChartView* psnr = monitor->chart(QStringLiteral("val/psnr"));
    MetricChartView* ssim = monitor->chart(QStringLiteral("val/ssim"));
    QVERIFY(psnr && ssim);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          monitor->refresh_now();
          return psnr->displayed_raw_points(0).size() >= 4;
        }(),
        120000);
    QVERIFY(psnr->isVisible() && ssim->isVisible());
    QVERIFY(!ssim->displayed_raw_points(0).isEmpty());
    QVERIFY(!monitor->chart(QStringLiteral("train/loss"))->displayed_raw_points(0).isEmpty());
    for (const QPointF& p : psnr->displayed_raw_points(0))
      QVERIFY2(p.y() > 0 && p.y() < 100, qPrintable(QString::number(p.y())));
    QVERIFY2(monitor->garbage_text().isEmpty(), qPrintable(monitor->garbage_text()));

    const QString shot = ui::test::output_dir() + QStringLiteral("/translation-run.png");
    QString error;
    QVERIFY2(window.save_screenshot(shot, &error), qPrintable(error));
    qInfo("screenshot: %s", qPrintable(shot));

    QVERIFY(engine.waitForFinished(300000));
    QCOMPARE(engine.exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->status(), app::RunStatus::finished, 30000);
  }
};

QTEST_MAIN(TestTranslationRun)
#include "test_translation_run.moc"
