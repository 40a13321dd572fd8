// Runs a job on the hosts of an SSH cluster: one `medsynth-engine launch
// --nnodes N --node-rank K --master-addr <node 0> --master-port P` per host,
// each started detached over libssh (remote_node.hpp) and followed by a
// NodeLink on its own thread. Node 0's stdout is the event stream (into
// model()); every node's stderr comes back as stderr_text("[node] ...").
// Per-node state is in nodes(). A dropped link is reconnected and reading
// continues at the byte it stopped at; the console can also reattach() to a
// run after a restart (LaunchRecord). stop() reaches every node: SIGTERM
// (checkpoint, exit 143), SIGKILL after the grace period. Destroying the
// launcher leaves a running job running (reattach later).
//
// The hosts must share work_dir's file system (the run directory is created
// by rank 0 and opened by the others), as on a cluster with a shared home.
#pragma once

#include <QList>
#include <QThread>
#include <memory>

#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"
#include "app/cluster/launch_record.hpp"
#include "app/cluster/node_link.hpp"
#include "app/launch/launcher.hpp"
#include "app/launch/line_splitter.hpp"

namespace medsynth::app {

struct SshLauncherOptions {
  ClusterSpec cluster;
  AuthDelegate* delegate = nullptr;   // not owned; must outlive the launcher. Null: unknown hosts refused
  QString records_dir;                // empty: default_launch_records_dir()
  int poll_interval_ms = 250;
  int stop_grace_ms = 45000;          // above the engine launcher's own grace
  int reconnect_give_up_s = 600;

  QStringList validate() const;
};

class SshLauncher : public Launcher {
  Q_OBJECT

 public:
  explicit SshLauncher(SshLauncherOptions options, QObject* parent = nullptr);
  ~SshLauncher() override;

  void start(const LaunchRequest& request) override;
  void stop() override;
  bool is_running() const override { return running_; }
  // Follows a run started earlier (by this or another console) from its record.
  void reattach(const LaunchRecord& record);

  const LaunchRecord& record() const { return record_; }
  // The engine arguments of node `rank` (tests, docs).
  QStringList engine_arguments(const LaunchRequest& request, int rank, const QString& node_dir) const;
  // Tests: drop node `index`'s connection as a network failure would.
  void drop_connection(int index);
  int reconnects() const { return reconnects_; }

 private:
  void begin(bool start_engines, const LaunchRequest& request, const QByteArray& job_text);
  void on_out(int index, const QByteArray& chunk);
  void on_err(int index, const QByteArray& chunk);
  void on_ended(int index, int exit_code, const QString& reason);
  void shut_down_threads();

  SshLauncherOptions options_;
  LaunchRecord record_;
  QList<NodeLink*> links_;
  QList<QThread*> threads_;
  QList<LineSplitter> err_lines_;
  QStringList failures_;
  QStringList stderr_tail_;
  int ended_count_ = 0;
  int node0_exit_ = -1;
  int reconnects_ = 0;
  bool running_ = false;
  bool stop_requested_ = false;
  bool started_emitted_ = false;
  bool run_dir_emitted_ = false;
};

}  // namespace medsynth::app
