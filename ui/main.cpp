// The `medsynth` console executable: parses the command line (CommandLine),
// restores settings and theme, shows the MainWindow and opens what was asked
// for. Errors on the command line exit with code 2 and the usage, like the engine.
#include <QApplication>
#include <QTimer>
#include <cstdio>
#include <optional>

#include "app/headless/cluster_run_command.hpp"
#include "ui/shell/command_line.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/shell/theme_controller.hpp"
#include "ui/viewer/snapshot.hpp"

#ifndef MEDSYNTH_VERSION
#define MEDSYNTH_VERSION "0.0.0"
#endif

namespace {

// `medsynth run --cluster ...`: the headless cluster launch, no display needed.
int run_cluster_headless(int& argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("medsynth"));
  QCoreApplication::setApplicationName(QStringLiteral("medsynth"));
  return medsynth::app::run_cluster_command(QCoreApplication::arguments().mid(2));
}

// --help and --version answer without a display (QApplication needs one):
// the exit code when one of them was asked for.
std::optional<int> answer_help_or_version(int argc, char** argv) {
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
  return std::nullopt;
}

// Without a display Qt's xcb plugin aborts (SIGABRT, exit 134, issue 53
// item 10) after a page of plugin diagnostics; say what is missing instead.
// A platform chosen on purpose (QT_QPA_PLATFORM=offscreen, -platform) is
// left to Qt. True when it said so.
bool report_missing_display(int argc, char** argv) {
  bool platform_chosen = !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
  for (int i = 1; i < argc; ++i) platform_chosen = platform_chosen || QByteArray(argv[i]) == "-platform";
  if (!platform_chosen && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    std::fputs(
        "medsynth: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset).\n"
        "Run it in a desktop session, over `ssh -X`, or under `xvfb-run`; "
        "`medsynth run --cluster ...` and medsynth-engine work without one.\n",
        stderr);
    return true;
  }
  return false;
}

// --help, --version and a bad command line, once parsed: the exit code when
// one of them ends the program before any window.
std::optional<int> answer_parsed(const medsynth::ui::CommandLine& command_line,
                                 const medsynth::ui::CommandLineResult& parsed) {
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
  return std::nullopt;
}

// --quit-after-ms: the screenshot, if one was asked for, then the exit.
void schedule_quit(medsynth::ui::MainWindow& window, const medsynth::ui::CommandLineOptions& options) {
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

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && QByteArray(argv[1]) == "run") return run_cluster_headless(argc, argv);
  if (const std::optional<int> code = answer_help_or_version(argc, argv)) return *code;
  if (report_missing_display(argc, argv)) return 2;
  QApplication app(argc, argv);  // takes Qt's own options (-platform, -style) out of argv
  QApplication::setOrganizationName(QStringLiteral("medsynth"));
  QApplication::setApplicationName(QStringLiteral("medsynth"));
  QApplication::setApplicationVersion(QStringLiteral(MEDSYNTH_VERSION));

  medsynth::ui::CommandLine command_line;
  const medsynth::ui::CommandLineResult parsed = command_line.parse(QApplication::arguments());
  if (const std::optional<int> code = answer_parsed(command_line, parsed)) return *code;
  const medsynth::ui::CommandLineOptions& options = parsed.options;
  if (options.verb == QStringLiteral("snapshot"))  // headless: no window is shown
    return medsynth::ui::snapshot_volume(options.verb_arguments.value(0), options.verb_arguments.value(1));

  medsynth::app::SettingsStore settings(options.settings_file);
  medsynth::ui::MainWindow window(&settings);
  window.theme()->apply_saved();
  window.apply_command_line(options);
  window.show();
  window.probe_machine();

  if (options.quit_after_ms >= 0) schedule_quit(window, options);
  return QApplication::exec();
}
