// One node of a cluster launch, followed from a worker thread: connects (and
// reconnects after a dropped link), uploads and starts the detached engine
// (remote_node.hpp) or reattaches to one already running, then polls it:
// new bytes of its stdout (node 0: the event stream) and stderr from the
// offsets read so far — so a reconnect neither loses nor repeats a byte —
// and its status, until it exits. stop() sends SIGTERM, then SIGKILL after
// the grace period. Everything it learns arrives as queued signals.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>

#include "app/cluster/command_shell.hpp"

namespace medsynth::app {

using ShellFactory = std::function<std::unique_ptr<CommandShell>(QString* error)>;

struct NodeLinkOptions {
  int index = 0;
  QString name;
  ShellFactory connect;
  QString node_dir;
  bool start = true;          // false: reattach to an engine started earlier
  QByteArray script;          // run.sh (start only)
  QByteArray job_text;        // job.yaml (start only)
  bool follow_out = false;    // read `out` (the events, on node 0)
  int poll_interval_ms = 250;
  int reconnect_give_up_s = 600;  // a link down this long: the node is lost
  int stop_grace_ms = 30000;      // SIGTERM -> SIGKILL
  qint64 max_chunk_bytes = 1 << 20;

  QStringList validate() const;
};

class NodeLink : public QObject {
  Q_OBJECT

 public:
  explicit NodeLink(NodeLinkOptions options);

  // Thread-safe.
  void stop() {
    stop_requested_ = true;
    wake_ = true;
  }
  void kill_now() {
    kill_requested_ = true;
    wake_ = true;
  }
  // Stop following (the console closes): the remote engine keeps running.
  void abandon() { abandoned_ = true; }
  // Tests: close the connection as a network failure would.
  void drop_connection() { drop_requested_ = true; }

 public slots:
  void run();  // the loop; returns once the node ended or was abandoned

 signals:
  void state_changed(int index, const QString& state, const QString& detail);
  void out_read(int index, const QByteArray& chunk);
  void err_read(int index, const QByteArray& chunk);
  void reconnected(int index, qint64 out_offset);
  void ended(int index, int exit_code, const QString& reason);

 private:
  bool ensure_connected(bool first);
  bool start_or_reattach();
  bool reconnect_if_lost(bool* was_lost);
  bool drain(const QString& file, qint64* offset, bool is_out, bool* lost);
  void sleep_ms(int ms);

  NodeLinkOptions o_;
  std::unique_ptr<CommandShell> shell_;
  qint64 out_offset_ = 0;
  qint64 err_offset_ = 0;
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> kill_requested_{false};
  std::atomic<bool> abandoned_{false};
  std::atomic<bool> drop_requested_{false};
  std::atomic<bool> wake_{false};  // cut the current sleep short
};

}  // namespace medsynth::app
