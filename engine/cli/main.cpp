// medsynth-engine: the headless engine's command line. Thin: parses verbs,
// calls the library, and is the one place where errors become exit codes:
// 0 ok, 1 runtime failure, 2 usage or job-file error, 3 bad data, 4 disk full
// or a file-size limit (never restarted), 130 after
// Ctrl-C (143 after SIGTERM) once the checkpoint is written.
#include <CLI/CLI.hpp>

#include <csignal>

#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/signals.hpp"
#include "cli/usage_suggestions.hpp"
#include "cli/verbs.hpp"
#include "core/error.hpp"
#include "run/crash_report.hpp"

int main(int argc, char** argv) {
  using namespace medsynth;
  // Past a file-size limit (ulimit -f, RLIMIT_FSIZE) the kernel sends SIGXFSZ,
  // whose default kills the process mid-write and leaves a temporary file.
  // Ignored, the write fails with EFBIG: the checkpoint writer names the file,
  // removes its temporary and the previous checkpoint stays.
  std::signal(SIGXFSZ, SIG_IGN);
  // A crash on a node leaves its signal and stack in the worker's log.
  install_crash_report();
  CLI::App app{"medsynth-engine: train and evaluate 3D generative models for CT/MRI (headless)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("medsynth-engine ") + MEDSYNTH_VERSION);
  std::map<const CLI::App*, cli::Action> actions;
  auto add = [&](cli::Action action) { actions[app.get_subcommands({}).back()] = std::move(action); };
  add(cli::add_train_verb(app));
  add(cli::add_eval_verb(app));
  add(cli::add_evaluate_verb(app));
  add(cli::add_info_verb(app));
  add(cli::add_validate_verb(app));
  add(cli::add_launch_verb(app));
  add(cli::add_encode_verb(app));
  add(cli::add_generate_verb(app));
  add(cli::add_regenerate_verb(app));
  add(cli::add_export_dicom_verb(app));
  add(cli::add_export_seg_verb(app));
  add(cli::add_sweep_verb(app));
  add(cli::add_dataset_card_verb(app));
  add(cli::add_prepare_label_verb(app));
  add(cli::add_import_maisi_verb(app));
  add(cli::add_export_maisi_verb(app));
  add(cli::add_completion_verb(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const std::string suggestions =
        e.get_exit_code() == 0 ? "" : cli::usage_suggestions(app, std::vector<std::string>(argv + 1, argv + argc));
    if (suggestions.empty()) return app.exit(e) == 0 ? 0 : 2;
    std::cerr << "medsynth-engine: " << suggestions << "Run with --help for more information.\n";
    return 2;
  }
  try {
    for (auto* sub : app.get_subcommands())
      if (auto it = actions.find(sub); it != actions.end()) return it->second();
    return 2;
  } catch (const Interrupted& e) {
    std::cerr << "medsynth-engine: " << e.what() << "\n";
    // SIGINT: 130 like a shell; SIGTERM, SLURM's SIGUSR1, or a stop agreed with
    // another rank: 143, "stopped" to every launcher.
    return cli::stop_signal_number() == SIGINT ? 130 : 143;
  } catch (const Error& e) {
    std::cerr << "medsynth-engine: error: " << e.what() << "\n";
    switch (e.kind()) {
      case ErrorKind::usage: return 2;
      case ErrorKind::data: return 3;
      case ErrorKind::storage: return 4;
      case ErrorKind::interrupted: return 130;
      default: return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "medsynth-engine: error: " << e.what() << "\n";
    return 1;
  }
}
