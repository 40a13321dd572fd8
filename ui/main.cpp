// The `medsynth` console executable: parses the command line (CommandLine),
// restores settings and theme, shows the MainWindow and opens what was asked
// for. Errors on the command line exit with code 2 and the usage, like the engine.
#include <QApplication>
#include <QTimer>
#include <cstdio>

#include "app/headless/cluster_run_command.hpp"
#include "ui/shell/command_line.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/shell/theme_controller.hpp"
#include "ui/viewer/snapshot.hpp"

#ifndef MEDSYNTH_VERSION
#define MEDSYNTH_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  // `medsynth run --cluster ...`: the headless cluster launch, no display needed.
  if (argc > 1 && QByteArray(argv[1]) == "run") {
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("medsynth"));
    QCoreApplication::setApplicationName(QStringLiteral("medsynth"));
    return medsynth::app::run_cluster_command(QCoreApplication::arguments().mid(2));
  }
  // --help and --version answer without a display (QApplication needs one).
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (arg == "-h" || arg == "--help") {
      std::fputs(qPrintable(medsynth::ui::CommandLine().help_text()), stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("medsynth %s\n", MEDSYNTH_VERSION);
      return 0;
    }
  }
  // Without a display Qt's xcb plugin aborts (SIGABRT, exit 134, issue 53
  // item 10) after a page of plugin diagnostics; say what is missing instead.
  // A platform chosen on purpose (QT_QPA_PLATFORM=offscreen, -platform) is
  // left to Qt.
  bool platform_chosen = !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
  for (int i = 1; i < argc; ++i) platform_chosen = platform_chosen || QByteArray(argv[i]) == "-platform";
  if (!platform_chosen && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    std::fputs(
        "medsynth: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
        "Run it in a desktop session, over `ssh -X`, or under `xvfb-run`; "
        "`medsynth run --cluster ...` and medsynth-engine work without one.\n",
        stderr);
    return 2;
  }
  QApplication app(argc, argv);  // takes Qt's own options (-platform, -style) out of argv
  QApplication::setOrganizationName(QStringLiteral("medsynth"));
  QApplication::setApplicationName(QStringLiteral("medsynth"));
  QApplication::setApplicationVersion(QStringLiteral(MEDSYNTH_VERSION));

  medsynth::ui::CommandLine command_line;
  const medsynth::ui::CommandLineResult parsed = command_line.parse(QApplication::arguments());
  if (parsed.help) {
    std::fputs(qPrintable(command_line.help_text()), stdout);
    return 0;
  }
  if (parsed.version) {
    std::printf("medsynth %s\n", MEDSYNTH_VERSION);
    return 0;
  }
  if (!parsed.ok()) {
    std::fprintf(stderr, "medsynth: %s\n\n%s", qPrintable(parsed.error), qPrintable(command_line.help_text()));
    return 2;
  }
  const medsynth::ui::CommandLineOptions& options = parsed.options;
  if (options.verb == QStringLiteral("snapshot"))  // headless: no window is shown
    return medsynth::ui::snapshot_volume(options.verb_arguments.value(0), options.verb_arguments.value(1));

  medsynth::app::SettingsStore settings(options.settings_file);
  medsynth::ui::MainWindow window(&settings);
  window.theme()->apply_saved();
  window.apply_command_line(options);
  window.show();
  window.probe_machine();

  if (options.quit_after_ms >= 0) {
    QTimer::singleShot(options.quit_after_ms, &window, [&window, &options] {
      int code = 0;
      if (!options.screenshot.isEmpty()) {
        QString error;
        if (window.save_screenshot(options.screenshot, &error)) {
          std::printf("screenshot: %s\n", qPrintable(options.screenshot));
        } else {
          std::fprintf(stderr, "medsynth: %s\n", qPrintable(error));
          code = 1;
        }
      }
      // exit(), not quit(): Qt 6's quit() asks the windows, and they would ask the user.
      QCoreApplication::exit(code);
    });
  }
  return QApplication::exec();
}
