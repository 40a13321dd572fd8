// Turns the console's intents into runs: "launch the job being edited",
// "resume this run", "open that run directory". Builds the LaunchRequest
// (job text written to a private temporary file when it is unsaved or
// modified, processes and restarts from the Machine panel, runs folder),
// validates it, creates the RunController and tells the history which run is
// live. One launched run at a time (2 cores do not profit from two). The ui's
// MainWindow owns it and opens a monitor tab per run_opened(); it needs no
// widget, so tests/app drives it without a display.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTemporaryDir>
#include <memory>
#include <optional>

#include "app/jobs/job_document.hpp"
#include "app/jobs/job_field_catalog.hpp"
#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"
#include "app/launch/local_launcher.hpp"
#include "app/runs/run_store.hpp"

namespace medsynth::app {

class RunController;

class LaunchCoordinator : public QObject {
  Q_OBJECT

 public:
  // store may be null (no history updates).
  LaunchCoordinator(JobDocument* document, RunStore* store, QObject* parent = nullptr);
  ~LaunchCoordinator() override;

  void set_runs_dir(const QString& runs_dir);  // empty: the job's output.runs_dir
  QString runs_dir() const { return runs_dir_; }
  void set_launcher_options(const LocalLauncherOptions& options) { launcher_options_ = options; }
  // Where the next launch runs: this machine (nullopt) or a cluster (SSH
  // nodes or SLURM). delegate answers SSH questions (not owned).
  void set_target(const std::optional<ClusterSpec>& cluster) { target_ = cluster; }
  const std::optional<ClusterSpec>& target() const { return target_; }
  void set_auth_delegate(AuthDelegate* delegate) { delegate_ = delegate; }

  // Null (and error_message) when the job cannot be launched.
  RunController* launch(const LaunchOptions& options);
  RunController* resume(const QString& run_dir, const LaunchOptions& options);
  // An already open run directory returns its controller.
  RunController* open_run(const QString& run_dir);

  RunController* active() const;  // the launched run still alive, or null
  QList<RunController*> runs() const;
  // Forgets a run (its monitor tab closed). A live run is not closed: false.
  bool close_run(RunController* run);

 public slots:
  void stop_active();

 signals:
  void run_opened(medsynth::app::RunController* run);
  void active_changed(bool live);
  void run_ended(medsynth::app::RunController* run, medsynth::app::RunStatus status);
  void error_message(const QString& text);
  void status_message(const QString& text);

 private:
  RunController* start(const LaunchRequest& request);
  QString job_file_for_launch(QString* error);
  void report_active();  // emits active_changed when it changed

  JobDocument* document_;
  QPointer<RunStore> store_;
  QString runs_dir_;
  LocalLauncherOptions launcher_options_;
  std::optional<ClusterSpec> target_;
  AuthDelegate* delegate_ = nullptr;
  std::unique_ptr<QTemporaryDir> temp_dir_;  // unsaved jobs handed to the engine
  int temp_counter_ = 0;
  bool reported_active_ = false;
  QList<QPointer<RunController>> runs_;
};

}  // namespace medsynth::app
