// The shell's small parts: CommandLine parsing and its extension points,
// medsynth::app::SettingsStore persistence, ThemeController palettes.
#include <QApplication>
#include <QStyle>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/shell/command_line.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/shell/theme_controller.hpp"

using namespace medsynth::ui;

class TestShell : public QObject {
  Q_OBJECT

 private slots:
  void parses_the_options() {
    const CommandLineResult r = CommandLine().parse({"medsynth", "--open-run", "/runs/a", "--runs-dir=/r1",
                                                     "--runs-dir", "/r2", "--open-job", "job.yaml"});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.options.open_run, QStringLiteral("/runs/a"));
    QCOMPARE(r.options.open_job, QStringLiteral("job.yaml"));
    QCOMPARE(r.options.runs_dirs, (QStringList{"/r1", "/r2"}));
    QVERIFY(r.options.verb.isEmpty());
  }

  void reports_errors_by_name() {
    QVERIFY(CommandLine().parse({"medsynth", "--open-runn", "x"}).error.contains("--open-runn"));
    QVERIFY(CommandLine().parse({"medsynth", "--open-run"}).error.contains("DIR"));
    QVERIFY(CommandLine().parse({"medsynth", "--quit-after-ms", "soon"}).error.contains("--quit-after-ms"));
    QVERIFY(CommandLine().parse({"medsynth", "--screenshot", "a.png"}).error.contains("--quit-after-ms"));
    QVERIFY(CommandLine().parse({"medsynth", "frobnicate", "a", "b"}).error.contains("unknown command"));
    QVERIFY(CommandLine().parse({"medsynth", "snapshot", "a.nii.gz", "b.jpg"}).error.contains(".png"));
    QVERIFY(CommandLine().parse({"medsynth", "snapshot", "a.nii.gz"}).error.contains("IN OUT.png"));
    QVERIFY(CommandLine().parse({"medsynth", "--help"}).help);
  }

  void screenshot_options_are_hidden_but_work() {
    CommandLine cli;
    const CommandLineResult r = cli.parse({"medsynth", "--screenshot", "/tmp/x.png", "--quit-after-ms", "1500"});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.options.quit_after_ms, 1500);
    QVERIFY(!cli.help_text().contains("--screenshot"));
    QVERIFY(cli.help_text().contains("--open-run DIR"));
  }

  void viewer_options_and_the_snapshot_verb() {
    const CommandLineResult r = CommandLine().parse({"medsynth", "--open-volume", "a.nii.gz", "--open-volume", "dicom/"});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.options.open_volumes, (QStringList{"a.nii.gz", "dicom/"}));
    const CommandLineResult s = CommandLine().parse({"medsynth", "snapshot", "ct.nii.gz", "ct.png"});
    QVERIFY2(s.ok(), qPrintable(s.error));
    QCOMPARE(s.options.verb, QStringLiteral("snapshot"));
    QCOMPARE(s.options.verb_arguments, (QStringList{"ct.nii.gz", "ct.png"}));
  }

  void file_arguments_open_volumes_like_a_file_manager_asks() {
    // The .desktop entry runs `medsynth %F`: absolute paths, several at once.
    const CommandLineResult r = CommandLine().parse({"medsynth", "/data/ct.nii.gz", "/data/dicom/CT1", "--runs-dir", "/r"});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.options.open_volumes, (QStringList{"/data/ct.nii.gz", "/data/dicom/CT1"}));
    QVERIFY(r.options.verb.isEmpty());
    const CommandLineResult relative = CommandLine().parse({"medsynth", "ct.nii.gz"});
    QCOMPARE(relative.options.open_volumes, (QStringList{"ct.nii.gz"}));
    // A bare word is still a mistyped command, not a file.
    QVERIFY(CommandLine().parse({"medsynth", "snapshto", "a.nii.gz"}).error.contains("unknown command"));
    QVERIFY(CommandLine().help_text().contains("VOLUME..."));
  }

  void can_be_extended_with_options_and_verbs() {
    CommandLine cli;
    QString volume;
    cli.add_value_option("open-atlas", "FILE", "Open an atlas.", [&volume](CommandLineOptions&, const QString& v) {
      volume = v;
      return QString();
    });
    cli.add_verb("render", {"IN", "OUT"}, "Render a volume to a PNG.",
                 [](CommandLineOptions&, const QStringList& args) {
                   return args[1].endsWith(".png") ? QString() : QStringLiteral("snapshot: OUT must be a .png");
                 });
    CommandLineResult r = cli.parse({"medsynth", "--open-atlas", "ct.nii.gz", "render", "ct.nii.gz", "ct.png"});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(volume, QStringLiteral("ct.nii.gz"));
    QCOMPARE(r.options.verb, QStringLiteral("render"));
    QCOMPARE(r.options.verb_arguments, (QStringList{"ct.nii.gz", "ct.png"}));
    QVERIFY(cli.parse({"medsynth", "render", "ct.nii.gz"}).error.contains("IN OUT"));
    QVERIFY(cli.parse({"medsynth", "snapshot", "a", "b.jpg"}).error.contains(".png"));
    QVERIFY(cli.help_text().contains("snapshot IN OUT"));
  }

  void settings_persist_in_the_given_file() {
    QTemporaryDir dir;
    const QString ini = dir.filePath("settings.ini");
    {
      medsynth::app::SettingsStore s(ini);
      s.set_theme("dark");
      s.set_processes(2);
      s.set_max_restarts(3);
      for (int i = 0; i < 12; ++i) s.add_recent_job(dir.filePath(QStringLiteral("job%1.yaml").arg(i)));
      s.add_recent_job(dir.filePath("job3.yaml"));  // moves to the front, no duplicate
      s.set_window_geometry("geometry-bytes");
      s.sync();
    }
    medsynth::app::SettingsStore again(ini);
    QCOMPARE(again.theme(), QStringLiteral("dark"));
    QCOMPARE(again.processes(), 2);
    QCOMPARE(again.max_restarts(), 3);
    const QStringList recent = again.recent_jobs();
    QCOMPARE(recent.size(), medsynth::app::SettingsStore::k_max_recent_jobs);
    QCOMPARE(recent.front(), dir.filePath("job3.yaml"));
    QCOMPARE(recent.count(dir.filePath("job3.yaml")), 1);
    QCOMPARE(again.window_geometry(), QByteArray("geometry-bytes"));
  }

  void theme_toggles_the_palette_and_is_persisted() {
    QTemporaryDir dir;
    medsynth::app::SettingsStore settings(dir.filePath("s.ini"));
    ThemeController theme(&settings);
    theme.apply_saved();
    QCOMPARE(theme.theme(), ThemeController::Theme::light);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() > 128);
    QSignalSpy changed(&theme, &ThemeController::theme_changed);
    theme.toggle();
    QCOMPARE(changed.count(), 1);
    QVERIFY(theme.is_dark());
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
    QCOMPARE(settings.theme(), QStringLiteral("dark"));
    ThemeController restored(&settings);
    theme.set_theme(ThemeController::Theme::light);
    settings.set_theme("dark");
    restored.apply_saved();
    QVERIFY(restored.is_dark());
  }
};

QTEST_MAIN(TestShell)
#include "test_shell.moc"
