// The interface every way of running a job implements: LocalLauncher now,
// SshLauncher and SlurmLauncher later. A launcher owns the RunModel of the run
// it started; the ui binds its run monitor to model() and to these signals.
//
// Contract: after start() exactly one finished() follows (also when the
// process fails to start: failed_to_start() then finished(-1, failed)), so
// a ui can always re-enable its buttons. stop() is graceful: SIGTERM, the
// engine writes a checkpoint and exits 143 (status stopped); a process that
// does not exit within the grace period is killed.
#pragma once

#include <QByteArrayView>
#include <QList>
#include <QObject>
#include <QString>
#include <memory>

#include "app/launch/launch_request.hpp"
#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

// One node of a cluster run as the run monitor lists it (local runs have none).
struct NodeState {
  QString name;    // "node-a"
  QString state;   // connecting, starting, running, disconnected, reconnecting, reattached, stopping, exited, gone, failed
  QString detail;  // "pid 4242", "exit code 0", the error
  int exit_code = -1;
};

class Launcher : public QObject {
  Q_OBJECT

 public:
  explicit Launcher(QObject* parent = nullptr);
  ~Launcher() override;

  virtual void start(const LaunchRequest& request) = 0;
  virtual void stop() = 0;
  virtual bool is_running() const = 0;

  // The run being (or last) launched; cleared at each start().
  RunModel* model() { return &model_; }
  const RunModel* model() const { return &model_; }
  QString run_dir() const { return model_.run_dir(); }
  // The nodes of a cluster run, in node-rank order; empty for a local run.
  QList<NodeState> nodes() const { return nodes_; }

 signals:
  void started();
  void run_dir_known(const QString& run_dir);
  void stderr_text(const QString& text);
  void finished(int exit_code, medsynth::app::RunStatus status);
  void failed_to_start(const QString& reason);
  void nodes_changed();

 protected:
  // The run's status once its process(es) ended: the model's if the stream
  // ended with run_finished/run_failed, else decided from how it ended (and
  // set on the model with a message).
  // The model fails with `reason`; failed_to_start, then finished(-1, failed).
  void fail_start(const QString& reason);
  // For launchers that ship the job file: checks the request (and the
  // launcher's own problems), reads the job file into *job_text and clears
  // the model. False after fail_start() when anything is wrong.
  bool prepare_start(const LaunchRequest& request, QStringList problems, QByteArray* job_text);
  // One line of a cluster node's stderr (or a SLURM output file): relayed as
  // stderr_text ("[source] line"), and, when it is a rank's log line
  // ("... [rank N] INFO ..."), added to the model's log of that rank: for
  // cluster runs these lines are the rank logs.
  void relay_log_line(const QString& source, const QString& line);
  RunStatus conclude_run(int exit_code, bool crashed, bool stop_requested, const QString& stderr_tail);
  // The engine's event stream, however it arrives (a local process's stdout,
  // node 0's output over SSH, SLURM's events file), goes through these three
  // into model_: one reading path for every launcher, so what a local run
  // shows (stages, live samples) a cluster run shows too.
  void begin_event_stream();
  void feed_event_stream(QByteArrayView chunk);
  void end_event_stream();  // the stream is over: a cut last line is counted
  void set_node_state(int index, const QString& state, const QString& detail, int exit_code = -1);

  RunModel model_;
  QList<NodeState> nodes_;

 private:
  std::unique_ptr<EventStreamReader> event_reader_;
};

}  // namespace medsynth::app
