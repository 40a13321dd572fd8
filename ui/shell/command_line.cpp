#include "ui/shell/command_line.hpp"

namespace medsynth::ui {

CommandLine::CommandLine() {
  add_value_option("open-job", "FILE", "Open a job file (.yaml or .json) in the job editor.",
                   [](CommandLineOptions& o, const QString& v) {
                     o.open_job = v;
                     return QString();
                   });
  add_value_option("open-run", "DIR", "Show a run directory (finished or still running) in a run monitor.",
                   [](CommandLineOptions& o, const QString& v) {
                     o.open_run = v;
                     return QString();
                   });
  add_value_option("open-volume", "FILE", "Open a volume (.nii/.nii.gz or a DICOM folder) in the viewer (repeatable).",
                   [](CommandLineOptions& o, const QString& v) {
                     o.open_volumes << v;
                     return QString();
                   });
  add_verb("snapshot", {"IN", "OUT.png"}, "Write three slices and a 3D rendering of volume IN to OUT.png, without a window (needs an X display; Xvfb will do).",
           [](CommandLineOptions&, const QStringList& args) {
             return args.value(1).endsWith(QStringLiteral(".png"), Qt::CaseInsensitive) ? QString()
                                                                                          : QStringLiteral("snapshot: OUT must be a .png file");
           });
  add_value_option("runs-dir", "DIR", "Also list the runs under DIR in the history, and launch into it (repeatable).",
                   [](CommandLineOptions& o, const QString& v) {
                     o.runs_dirs << v;
                     return QString();
                   });
  add_value_option("settings", "FILE", "Read and write settings in this INI file instead of the user's.",
                   [](CommandLineOptions& o, const QString& v) {
                     o.settings_file = v;
                     return QString();
                   });
  add_value_option("screenshot", "FILE", "Save a PNG of the main window before quitting (with --quit-after-ms).",
                   [](CommandLineOptions& o, const QString& v) {
                     o.screenshot = v;
                     return QString();
                   },
                   /*hidden=*/true);
  add_value_option("quit-after-ms", "N", "Quit N milliseconds after start.",
                   [](CommandLineOptions& o, const QString& v) {
                     bool ok = false;
                     const int n = v.toInt(&ok);
                     if (!ok || n < 0) return QStringLiteral("--quit-after-ms: expected a number of milliseconds >= 0 (got \"%1\")").arg(v);
                     o.quit_after_ms = n;
                     return QString();
                   },
                   /*hidden=*/true);
}

void CommandLine::add_value_option(const QString& name, const QString& value_name, const QString& help,
                                   ValueHandler handler, bool hidden) {
  options_.push_back({name, value_name, help, std::move(handler), hidden});
}

void CommandLine::add_verb(const QString& name, const QStringList& arg_names, const QString& help, VerbHandler handler) {
  verbs_.push_back({name, arg_names, help, std::move(handler)});
}

const CommandLine::ValueOption* CommandLine::find_option(const QString& name) const {
  for (const ValueOption& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

namespace {
bool looks_like_path(const QString& word) { return word.contains('/') || word.contains('.'); }
}  // namespace

CommandLineResult CommandLine::parse(const QStringList& arguments) const {
  CommandLineResult result;
  QStringList positional;
  for (qsizetype i = 1; i < arguments.size(); ++i) {
    const QString& arg = arguments[i];
    if (arg == QLatin1String("-h") || arg == QLatin1String("--help")) {
      result.help = true;
      continue;
    }
    if (arg == QLatin1String("--version")) {
      result.version = true;
      continue;
    }
    if (arg == QLatin1String("--")) {
      positional += arguments.mid(i + 1);
      break;
    }
    if (!arg.startsWith(QLatin1String("--"))) {
      positional << arg;
      continue;
    }
    QString name = arg.mid(2);
    QString value;
    bool has_value = false;
    if (const qsizetype eq = name.indexOf('='); eq >= 0) {
      value = name.mid(eq + 1);
      name = name.left(eq);
      has_value = true;
    }
    const ValueOption* option = find_option(name);
    if (!option) {
      result.error = QStringLiteral("unknown option --%1").arg(name);
      return result;
    }
    if (!has_value) {
      if (i + 1 >= arguments.size()) {
        result.error = QStringLiteral("--%1: expects a value (%2)").arg(name, option->value_name);
        return result;
      }
      value = arguments[++i];
    }
    if (QString error = option->handler(result.options, value); !error.isEmpty()) {
      result.error = error;
      return result;
    }
  }
  if (!positional.isEmpty()) {
    const QString& verb_name = positional.front();
    const Verb* verb = nullptr;
    for (const Verb& v : verbs_) {
      if (v.name == verb_name) verb = &v;
    }
    // `medsynth FILE...` (what a file manager's "Open with" runs, the .desktop
    // entry's %F): volumes to open. A word without '/' or '.' is a mistyped
    // command rather than a file (write ./NAME for such a folder).
    if (!verb) {
      if (!looks_like_path(verb_name)) {
        result.error = QStringLiteral("unknown command \"%1\"").arg(verb_name);
        return result;
      }
      result.options.open_volumes += positional;
    } else {
      const QStringList args = positional.mid(1);
      if (args.size() != verb->arg_names.size()) {
        result.error = QStringLiteral("%1: expects %2 (got %3 arguments)")
                           .arg(verb->name, verb->arg_names.join(' '))
                           .arg(args.size());
        return result;
      }
      result.options.verb = verb->name;
      result.options.verb_arguments = args;
      if (QString error = verb->handler(result.options, args); !error.isEmpty()) result.error = error;
    }
  }
  if (result.error.isEmpty() && !result.options.screenshot.isEmpty() && result.options.quit_after_ms < 0) {
    result.error = QStringLiteral("--screenshot: needs --quit-after-ms N (when to take it)");
  }
  return result;
}

QString CommandLine::help_text() const {
  QString text = QStringLiteral("Usage: medsynth [OPTIONS] [VOLUME...]");
  if (!verbs_.empty()) text += QStringLiteral("\n       medsynth [OPTIONS] COMMAND ARGS...");
  text += QStringLiteral("\n\nThe medsynth console: edit jobs, launch and monitor training runs.\n\nOptions:\n");
  auto line = [](const QString& left, const QString& help) {
    return QStringLiteral("  %1 %2\n").arg(left.leftJustified(26), help);
  };
  for (const ValueOption& o : options_) {
    if (!o.hidden) text += line("--" + o.name + ' ' + o.value_name, o.help);
  }
  text += line(QStringLiteral("VOLUME..."), QStringLiteral("Volumes to open in the viewer, as --open-volume (a path: it holds a '/' or a '.')."));
  text += line(QStringLiteral("-h, --help"), QStringLiteral("Show this help."));
  text += line(QStringLiteral("--version"), QStringLiteral("Show the version."));
  if (!verbs_.empty()) {
    text += QStringLiteral("\nCommands:\n");
    for (const Verb& v : verbs_) text += line(v.name + ' ' + v.arg_names.join(' '), v.help);
  }
  // Handled by main() before any window exists (app/headless/cluster_run_command.hpp).
  text += QStringLiteral("\nHeadless cluster launch:\n");
  text += line(QStringLiteral("run --cluster C.yaml JOB"), QStringLiteral("Launch JOB over SSH or SLURM without a window and print its progress (medsynth run --help)."));
  return text;
}

}  // namespace medsynth::ui
