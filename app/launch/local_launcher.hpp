// Runs a job on this machine: a QProcess running
//   <engine> launch --nproc-per-node N [--max-restarts K] train JOB [overrides]
//            --json --no-progress --runs-dir D [--resume R] [--data P]
// whose stdout (events only, with --json) is fed to an EventStreamReader into
// model(), whose stderr is relayed line by line, and whose run directory's
// logs/rank*.log are followed for the log tabs. Everything is asynchronous
// (QProcess signals); the GUI thread never waits on the process.
//
// A process that crashes or vanishes without a terminal event ends the run as
// failed with a message (the tail of its stderr), never as running forever.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <memory>

#include "app/launch/launcher.hpp"
#include "app/launch/line_splitter.hpp"
#include "app/runs/event_file_tail.hpp"

namespace medsynth::app {

struct LocalLauncherOptions {
  QString engine;               // empty: engine_path()
  int stop_grace_ms = 30000;    // SIGTERM -> SIGKILL; above the engine launcher's own 15 s
  bool use_launch_verb = true;  // false: `train` directly (an engine without `launch`)
  bool follow_rank_logs = true;
  QStringList extra_engine_args;  // placed before the verb (tests)

  QStringList validate() const;
};

// The engine's command line for `request` (launch ... train JOB --json, or
// launch ... generate RUN --json): what LocalLauncher runs, for previews.
QStringList local_engine_arguments(const LaunchRequest& request, const LocalLauncherOptions& options = {});

class LocalLauncher : public Launcher {
  Q_OBJECT

 public:
  explicit LocalLauncher(QObject* parent = nullptr, LocalLauncherOptions options = {});
  ~LocalLauncher() override;

  void start(const LaunchRequest& request) override;
  void stop() override;
  bool is_running() const override;

  // $MEDSYNTH_ENGINE, else medsynth-engine next to this executable, else on PATH;
  // empty when none is found.
  static QString engine_path();
  // What to say when engine_path() is empty: where it was looked for.
  static QString engine_not_found();
  // The engine command line of a request (without the program).
  QStringList arguments(const LaunchRequest& request) const;
  QString program() const;
  bool stop_requested() const { return stop_requested_; }
  qint64 process_id() const;

 private slots:
  void on_stdout();
  void on_stderr();
  void relay_stderr_lines(const QStringList& lines);
  void on_finished(int exit_code, QProcess::ExitStatus exit_status);
  void on_error(QProcess::ProcessError error);

 private:
  void note_run_dir(const QString& run_dir);
  void finish_run(int exit_code, bool crashed);

  LocalLauncherOptions options_;
  QProcess* process_ = nullptr;
  std::unique_ptr<EventFileTail> logs_tail_;
  QTimer kill_timer_;
  LineSplitter stderr_lines_;
  QStringList stderr_tail_;  // last lines, for the failure message
  bool stop_requested_ = false;
  bool finished_emitted_ = true;
  bool run_dir_emitted_ = false;
};

}  // namespace medsynth::app
