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

#include <QObject>
#include <QString>

#include "app/launch/launch_request.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

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

 signals:
  void started();
  void run_dir_known(const QString& run_dir);
  void stderr_text(const QString& text);
  void finished(int exit_code, medsynth::app::RunStatus status);
  void failed_to_start(const QString& reason);

 protected:
  RunModel model_;
};

}  // namespace medsynth::app
