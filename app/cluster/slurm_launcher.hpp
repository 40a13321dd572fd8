// Runs a job as a SLURM batch job: writes the sbatch script (sbatch_script.hpp)
// and the job file into a launch directory, submits with `sbatch --parsable`
// on this machine or on a login host over SSH, then follows it from a worker
// thread: the job state (squeue, then scontrol once it left the queue), the
// run's events.jsonl from the byte read so far (across requeues: the requeued
// job continues the same run), and the job's output file as log lines.
// stop() is `scancel`: SLURM sends SIGTERM, the engine checkpoints and exits
// 143 within KillWait. Per-node state: one row, the job ("job 42 RUNNING on
// node[1-4]").
#pragma once

#include <QElapsedTimer>
#include <QThread>
#include <atomic>
#include <memory>

#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"
#include "app/cluster/command_shell.hpp"
#include "app/cluster/launch_record.hpp"
#include "app/launch/launcher.hpp"
#include "app/launch/line_splitter.hpp"

namespace medsynth::app {

struct SlurmLauncherOptions {
  ClusterSpec cluster;
  AuthDelegate* delegate = nullptr;  // for a login host over SSH; not owned
  QString records_dir;               // empty: default_launch_records_dir()
  int poll_interval_ms = 500;

  QStringList validate() const;
};

class SlurmFollower;

class SlurmLauncher : public Launcher {
  Q_OBJECT

 public:
  explicit SlurmLauncher(SlurmLauncherOptions options, QObject* parent = nullptr);
  ~SlurmLauncher() override;

  void start(const LaunchRequest& request) override;
  void stop() override;  // scancel
  bool is_running() const override { return running_; }
  void reattach(const LaunchRecord& record);

  QString job_id() const { return record_.slurm_job_id; }
  const LaunchRecord& record() const { return record_; }
  QString launch_dir() const { return record_.node_dirs.value(0); }

 private:
  void begin(const QByteArray& script, const QByteArray& job_text);
  void on_ended(int exit_code, const QString& reason);
  void release_follower();  // abandons the follower, joins and deletes its thread

  SlurmLauncherOptions options_;
  LaunchRecord record_;
  SlurmFollower* follower_ = nullptr;
  QThread* thread_ = nullptr;
  LineSplitter out_lines_;
  QStringList stderr_tail_;
  bool running_ = false;
  bool stop_requested_ = false;
  bool run_dir_emitted_ = false;
};

// The worker-thread side (internal; in the header for moc).
class SlurmFollower : public QObject {
  Q_OBJECT

 public:
  SlurmFollower(SlurmLauncherOptions options, LaunchRecord record, QByteArray script, QByteArray job_text);
  void cancel() { cancel_requested_ = true; }
  void abandon() { abandoned_ = true; }

 public slots:
  void run();

 signals:
  void submitted(const QString& job_id);
  void job_state(const QString& state, const QString& detail);
  void run_dir_found(const QString& run_dir);
  void events_read(const QByteArray& chunk);
  void output_read(const QByteArray& chunk);
  void ended(int exit_code, const QString& reason);

 private:
  std::unique_ptr<CommandShell> connect(QString* error);
  bool submit(CommandShell& shell, const QString& dir, QString* id);
  bool reconnect(std::unique_ptr<CommandShell>* shell, QElapsedTimer* down, QString* error, const QString& id);
  void send_scancel(CommandShell& shell, const QString& id, bool* cancel_sent, bool* lost);
  void look_for_run_dir(CommandShell& shell, const QString& dir, QString* run_dir, bool* lost);
  SlurmLauncherOptions o_;
  LaunchRecord record_;
  QByteArray script_;
  QByteArray job_text_;
  std::atomic<bool> cancel_requested_{false};
  std::atomic<bool> abandoned_{false};
};

}  // namespace medsynth::app
