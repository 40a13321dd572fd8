// The "Generate CT from MAISI weights" dialog (offscreen: no GL in it): the
// folder check shown as typed, Generate enabled only for a valid form, the
// command preview (folder, --out, size/spacing overrides, --label, launch
// --nproc-per-node), a run against a scripted engine ending in generated(),
// the engine's error shown, the File menu entry, and the screenshot
// build/test-output/ui/maisi-generate-dialog.png.
#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QProgressBar>
#include <QTabWidget>
#include <QtTest>

#include "app/jobs/job_field_catalog.hpp"
#include "config/job_spec.hpp"
#include "app/session/run_controller.hpp"
#include "ui/jobs/maisi_generate_dialog.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui_test_support.hpp"

using namespace medsynth;
using namespace medsynth::ui;

namespace {

QString miniature_folder() { return QStringLiteral(MEDSYNTH_SOURCE_DIR "/tests/engine/diffusion/data/maisi_folder"); }

// A scripted engine: import-maisi makes the run directory (with its job.yaml); `launch ...
// generate RUN ...` writes a pair into RUN/output and reports it on the event
// stream as the real engine's generate --json does.
QByteArray scripted_engine(const QByteArray& import_line) {
  return "case \"$1\" in\n"
         "  import-maisi) mkdir -p \"$4\"; touch \"$4/job.yaml\"; echo \"" +
         import_line +
         "\" >&2 ;;\n"
         "  launch) mkdir -p \"$5/output\"; echo x > \"$5/output/s0_image.nii.gz\"; echo x > "
         "\"$5/output/s0_label.nii.gz\";\n"
         "    echo "
         "'{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-12-01T09:00:00Z\",\"rank\":0,\"run_dir\":\"'\"$5\"'\","
         "\"job_name\":\"maisi\",\"task\":\"ldm\",\"world_size\":1,\"total_steps\":1,\"device\":\"cpu\"}'\n"
         "    echo "
         "'{\"v\":1,\"type\":\"run_finished\",\"time\":\"2026-12-01T09:00:02Z\",\"rank\":0,\"status\":\"completed\","
         "\"metrics\":{},\"duration_s\":2}' ;;\n"
         "esac\n";
}

// Issue 38: an engine whose generate step stops half way (progress: one of
// two images, as generate --json reports it; no artifact, whose viewer would
// need OpenGL, which this offscreen test has not) until the test creates
// RELEASE, so that the console is seen while the step runs.
QByteArray half_way_engine(const QByteArray& release) {
  return "case \"$1\" in\n"
         "  import-maisi) mkdir -p \"$4\"; touch \"$4/job.yaml\" ;;\n"
         "  launch) mkdir -p \"$5/output\"; echo x > \"$5/output/s0_image.nii.gz\";\n"
         "    echo "
         "'{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-12-01T09:00:00Z\",\"rank\":0,\"run_dir\":\"'\"$5\"'\","
         "\"job_name\":\"maisi\",\"task\":\"ldm\",\"config_hash\":\"0\",\"world_size\":1,\"effective_batch\":1,"
         "\"total_steps\":2,\"device\":\"cpu\"}'\n"
         "    echo '{\"v\":1,\"type\":\"progress\",\"time\":\"2026-12-01T09:01:00Z\",\"rank\":0,\"step\":1,"
         "\"total_steps\":2,\"epoch\":0,\"epochs\":0,\"samples_per_s\":0.0167,\"eta_s\":60}'\n"
         "    while [ ! -e '" +
         release +
         "' ]; do sleep 0.05; done\n"
         "    echo "
         "'{\"v\":1,\"type\":\"run_finished\",\"time\":\"2026-12-01T09:02:00Z\",\"rank\":0,\"status\":\"completed\","
         "\"metrics\":{},\"duration_s\":120}' ;;\n"
         "esac\n";
}

QString write_script(const QString& path, const QByteArray& body) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write("#!/bin/sh\n" + body);
  f.close();
  f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
  return path;
}

}  // namespace

class MaisiGenerateDialogTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void the_form_checks_the_folder_and_previews_both_commands() {
    MaisiGenerateDialog dialog(dir_.filePath("runs"), 2);
    QVERIFY(!dialog.generate_button()->isEnabled());  // no folder yet
    QVERIFY(dialog.problems_text().contains("folder:"));

    const QString no_models = dir_.filePath("NV-Generate-no-models");
    QDir().mkpath(no_models + "/configs");
    QFile(no_models + "/configs/config_network_rflow.json").open(QIODevice::WriteOnly);
    dialog.folder_edit()->setText(no_models);
    QVERIFY2(dialog.problems_text().contains(no_models) && dialog.problems_text().contains("models/"),
             qPrintable(dialog.problems_text()));
    QVERIFY(!dialog.generate_button()->isEnabled());

    dialog.folder_edit()->setText(miniature_folder());
    QVERIFY2(dialog.problems_text().isEmpty(), qPrintable(dialog.problems_text()));
    QVERIFY(dialog.generate_button()->isEnabled());
    dialog.size_box(2)->setValue(96);
    dialog.spacing_box(0)->setValue(0.75);
    const QString commands = dialog.commands_text();
    QVERIFY2(commands.contains("import-maisi " + miniature_folder() + " --out " + dir_.filePath("runs/maisi-rflow-ct-")),
             qPrintable(commands));
    QVERIFY2(commands.contains("launch --nproc-per-node 2 generate " + dir_.filePath("runs/maisi-rflow-ct-")),
             qPrintable(commands));
    QVERIFY2(commands.contains("generate.output_size=[256,256,96] generate.spacing=[0.75,1.5,2]"), qPrintable(commands));
    QVERIFY(!commands.contains("--label"));

    const QString mask = dir_.filePath("mask.nii.gz");
    QFile(mask).open(QIODevice::WriteOnly);
    dialog.label_edit()->setText(mask);
    dialog.model_box()->setCurrentText("ddpm-ct");
    QVERIFY2(dialog.commands_text().contains("--label " + mask), qPrintable(dialog.commands_text()));
    // The label's grid decides size and spacing: their boxes are off and say why.
    QVERIFY(!dialog.size_box(0)->isEnabled());
    QVERIFY(!dialog.spacing_box(2)->isEnabled());
    QVERIFY(dialog.size_box(0)->toolTip().contains("label map's grid"));
    QVERIFY(dialog.commands_text().contains("--model ddpm-ct"));
    dialog.label_edit()->clear();
    QVERIFY(dialog.size_box(0)->isEnabled());
    dialog.label_edit()->setText(dir_.filePath("no-such-mask.nii.gz"));
    QVERIFY(dialog.problems_text().contains("label_map:"));
    QVERIFY(!dialog.generate_button()->isEnabled());
  }

  // Issue 34: the MR contrast and the guidance scale. Left at "the model's"
  // they stay off the command line (import-maisi's choice stands); set, they
  // become job overrides of generate.
  void modality_and_guidance_reach_the_generate_command() {
    MaisiGenerateDialog dialog(dir_.filePath("runs"), 1);
    dialog.folder_edit()->setText(miniature_folder());
    QCOMPARE(dialog.modality_box()->value(), -1);
    QCOMPARE(dialog.modality_box()->text(), QStringLiteral("the model's"));
    QVERIFY(!dialog.commands_text().contains("generate.modality"));
    QVERIFY(!dialog.commands_text().contains("guidance"));
    dialog.modality_box()->setValue(10);
    dialog.guidance_box()->setValue(15.0);
    QVERIFY2(dialog.commands_text().contains("generate.modality=10"), qPrintable(dialog.commands_text()));
    QVERIFY2(dialog.commands_text().contains("generate.guidance_scale=15"), qPrintable(dialog.commands_text()));
    QCOMPARE(dialog.request().modality, 10);
    QVERIFY2(dialog.problems_text().isEmpty(), qPrintable(dialog.problems_text()));
  }

  // Size, spacing and the image count follow their job fields' rows (issue 33:
  // the dialog required >= 1 image while generate.num_images takes 0, "one
  // per process"), with the rows' labels and help.
  void the_fields_follow_their_job_field_rows() {
    MaisiGenerateDialog dialog(dir_.filePath("runs"), 1);
    dialog.folder_edit()->setText(miniature_folder());
    const auto images = app::find_job_field("generate.num_images");
    const auto size = app::find_job_field("generate.output_size");
    QVERIFY(images && size);
    QCOMPARE(dialog.images_box()->minimum(), 0);
    QCOMPARE(dialog.images_box()->value(), GenerateSpec{}.num_images);
    QCOMPARE(dialog.images_box()->toolTip(), images->help);
    QCOMPARE(dialog.size_box(0)->minimum(), static_cast<int>(size->minimum));
    QCOMPARE(dialog.size_box(0)->maximum(), static_cast<int>(size->maximum));
    QVERIFY(dialog.spacing_box(0)->minimum() > 0.0);
    dialog.images_box()->setValue(0);
    QVERIFY2(dialog.problems_text().isEmpty(), qPrintable(dialog.problems_text()));
    QVERIFY(dialog.commands_text().contains("--num-images 0"));
    // The request's own check is the engine's rule, by the row.
    app::MaisiGenerateRequest r = dialog.request();
    r.output_size[1] = 4096;
    r.num_images = -1;
    const QString problems = r.validate().join('\n');
    QVERIFY2(problems.contains("output_size.y: must be in [1, 2048] voxels (got 4096)"), qPrintable(problems));
    QVERIFY2(problems.contains("num_images: must be >= 0 (got -1)"), qPrintable(problems));
  }

  void generate_runs_both_commands_and_reports_the_pair() {
    const QString engine =
        write_script(dir_.filePath("engine.sh"), scripted_engine("import-maisi: read 3 checkpoints"));
    MaisiGenerateDialog dialog(dir_.filePath("runs-ok"), 1, nullptr, engine);
    dialog.folder_edit()->setText(miniature_folder());
    QSignalSpy generated(&dialog, &MaisiGenerateDialog::generated);
    dialog.generate_button()->click();
    QVERIFY(QTest::qWaitFor([&] { return generated.count() > 0; }, 30000));
    QVERIFY(generated.front().at(0).toString().endsWith("/output/s0_image.nii.gz"));
    QVERIFY(generated.front().at(1).toString().endsWith("/output/s0_label.nii.gz"));
    QVERIFY2(dialog.log_text().contains("import-maisi: read 3 checkpoints"), qPrintable(dialog.log_text()));
    QVERIFY(dialog.log_text().contains("Done:"));
  }

  void an_engine_error_is_shown_in_the_dialog() {
    const QString engine = write_script(dir_.filePath("failing.sh"),
                                        "echo 'medsynth-engine: error: models/diff_unet_3d_rflow-ct.pt: not found' >&2\n"
                                        "exit 3\n");
    MaisiGenerateDialog dialog(dir_.filePath("runs-fail"), 1, nullptr, engine);
    dialog.folder_edit()->setText(miniature_folder());
    QSignalSpy failed(dialog.flow(), &app::MaisiGenerateFlow::failed);
    dialog.generate_button()->click();
    QVERIFY(QTest::qWaitFor([&] { return failed.count() > 0; }, 30000));
    QVERIFY2(dialog.problems_text().contains("diff_unet_3d_rflow-ct.pt: not found"), qPrintable(dialog.problems_text()));
    QVERIFY(dialog.generate_button()->isEnabled());  // try again after fixing the folder
  }

  // Issue 33: the generate step is a run like every other, shown by the same
  // run monitor as a training run (its own QProcess before).
  void the_generate_step_opens_a_run_monitor() {
    const QString engine = write_script(dir_.filePath("engine-monitor.sh"), scripted_engine("imported"));
    qputenv("MEDSYNTH_ENGINE", engine.toUtf8());
    medsynth::app::SettingsStore settings(dir_.filePath("settings-monitor.ini"));
    MainWindow window(&settings);
    window.findChild<QAction*>("action_maisi_generate")->trigger();
    auto* dialog = window.findChild<MaisiGenerateDialog*>();
    QVERIFY(dialog);
    dialog->runs_dir_edit()->setText(dir_.filePath("runs-monitor"));
    dialog->folder_edit()->setText(miniature_folder());
    QSignalSpy generated(dialog, &MaisiGenerateDialog::generated);
    dialog->generate_button()->click();
    QVERIFY(QTest::qWaitFor([&] { return generated.count() > 0; }, 30000));
    qunsetenv("MEDSYNTH_ENGINE");
    app::RunController* run = dialog->flow()->generation();
    QVERIFY(run);
    RunMonitorWidget* monitor = window.monitor_for(run);
    QVERIFY2(monitor, "no run monitor shows the generate step");
    QCOMPARE(monitor->controller(), run);
    QCOMPARE(run->model()->status(), app::RunStatus::finished);
  }

  // Issue 38's must-show: the console while a generate step runs, with its
  // progress (1 of 2 images, the ETA), and a screenshot of it.
  void a_running_generate_shows_its_progress() {
    const QString release = dir_.filePath("release-generate");
    const QString engine = write_script(dir_.filePath("engine-half-way.sh"), half_way_engine(release.toUtf8()));
    qputenv("MEDSYNTH_ENGINE", engine.toUtf8());
    medsynth::app::SettingsStore settings(dir_.filePath("settings-running.ini"));
    MainWindow window(&settings);
    window.resize(1366, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.findChild<QAction*>("action_maisi_generate")->trigger();
    auto* dialog = window.findChild<MaisiGenerateDialog*>();
    QVERIFY(dialog);
    dialog->runs_dir_edit()->setText(dir_.filePath("runs-running"));
    dialog->folder_edit()->setText(miniature_folder());
    dialog->generate_button()->click();
    QVERIFY(QTest::qWaitFor([&] { return dialog->flow()->generation() != nullptr; }, 30000));
    app::RunController* run = dialog->flow()->generation();
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->current_step(), 1, 30000);
    QCOMPARE(run->model()->total_steps(), 2);
    QCOMPARE(run->model()->status(), app::RunStatus::running);
    dialog->hide();
    RunMonitorWidget* monitor = window.monitor_for(run);
    QVERIFY(monitor);
    window.tabs()->setCurrentWidget(monitor);
    QTRY_COMPARE(monitor->progress_bar()->value(), 1);  // one of two images
    QCOMPARE(monitor->progress_bar()->maximum(), 2);
    QCOMPARE(run->model()->reader_stats().problems(), 0);
    QVERIFY(window.save_screenshot(test::output_dir() + "/generate-running.png"));
    QFile(release).open(QIODevice::WriteOnly);  // let the engine finish
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->status(), app::RunStatus::finished, 30000);
    qunsetenv("MEDSYNTH_ENGINE");
  }

  void the_file_menu_opens_it_and_a_screenshot_is_saved() {
    medsynth::app::SettingsStore settings(dir_.filePath("settings.ini"));
    MainWindow window(&settings);
    auto* action = window.findChild<QAction*>("action_maisi_generate");
    QVERIFY(action);
    action->trigger();
    auto* dialog = window.findChild<MaisiGenerateDialog*>();
    QVERIFY(dialog && dialog->isVisible());
    dialog->folder_edit()->setText("/data/NV-Generate-CTMR");  // what a user would type (absent here)
    dialog->folder_edit()->setText(miniature_folder());
    dialog->label_edit()->setText(QString());
    QVERIFY(dialog->grab().save(test::output_dir() + "/maisi-generate-dialog.png"));
  }
};

QTEST_MAIN(MaisiGenerateDialogTest)
#include "test_maisi_generate_dialog.moc"
