// The `medsynth` executable's command line: what main() opens at start.
//   medsynth [--open-job FILE] [--open-run DIR] [--open-volume FILE]... [--runs-dir DIR]...
//   medsynth snapshot IN.nii.gz OUT.png     (headless: three slices + a rendering)
//            [--settings FILE] [--screenshot FILE --quit-after-ms N]
// Options are registered in a table (name, value, help, how it fills
// CommandLineOptions), and a first positional argument may name a verb with
// its own arguments, so `--open-volume FILE` or `snapshot IN OUT` are one
// add_*() call each. Pure parsing, no file checks: MainWindow reports paths
// that do not exist. Used by main() and tests/ui/test_command_line.cpp.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace medsynth::ui {

struct CommandLineOptions {
  QString open_job;
  QString open_run;
  QStringList open_volumes;  // --open-volume FILE (repeatable): a viewer tab each
  QStringList runs_dirs;     // extra run-history roots (repeatable)
  QString settings_file;     // an INI file instead of the user's settings (tests, screenshots)
  // Hidden, for docs and CI-less checks: grab the main window into this PNG
  // after quit_after_ms (and once an --open-run run is loaded), then quit.
  QString screenshot;
  int quit_after_ms = -1;
  QString verb;              // "" for the GUI; a registered verb otherwise
  QStringList verb_arguments;
};

struct CommandLineResult {
  CommandLineOptions options;
  QString error;       // non-empty: print it with the usage, exit 2
  bool help = false;   // --help: print help_text(), exit 0
  bool version = false;
  bool ok() const { return error.isEmpty(); }
};

class CommandLine {
 public:
  // Returns an error message ("" = accepted) naming what is wrong with the value.
  using ValueHandler = std::function<QString(CommandLineOptions&, const QString& value)>;
  using VerbHandler = std::function<QString(CommandLineOptions&, const QStringList& arguments)>;

  CommandLine();  // registers the options above

  void add_value_option(const QString& name, const QString& value_name, const QString& help, ValueHandler handler,
                        bool hidden = false);
  // A verb: `medsynth NAME ARG...` with exactly arg_names.size() arguments.
  void add_verb(const QString& name, const QStringList& arg_names, const QString& help, VerbHandler handler);

  // arguments[0] is the program (as QCoreApplication::arguments()).
  CommandLineResult parse(const QStringList& arguments) const;
  QString help_text() const;

 private:
  struct ValueOption {
    QString name;  // without the leading "--"
    QString value_name;
    QString help;
    ValueHandler handler;
    bool hidden = false;
  };
  struct Verb {
    QString name;
    QStringList arg_names;
    QString help;
    VerbHandler handler;
  };
  const ValueOption* find_option(const QString& name) const;

  std::vector<ValueOption> options_;
  std::vector<Verb> verbs_;
};

}  // namespace medsynth::ui
