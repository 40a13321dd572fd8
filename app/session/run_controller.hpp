// One run shown in a monitor tab, whatever its origin:
//  - launched here: owns a Launcher (LocalLauncher: a QProcess, events
//    from its stdout; SshLauncher / SlurmLauncher: a cluster run, with
//    per-node states) and can be stopped gracefully;
//  - followed: a run directory opened with --open-run or from the history,
//    read by an EventFileTail as it grows (it may still be running elsewhere).
// Either way model() is the RunModel the monitor binds to. Created by
// LaunchCoordinator; the thread of its QObject only (the GUI thread in the
// console), nothing here blocks. No widget: tests/app drive it headless.
#pragma once

#include <QObject>
#include <QString>
#include <memory>

#include "app/launch/launch_request.hpp"
#include "app/launch/local_launcher.hpp"
#include "app/runs/event_file_tail.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

class RunController : public QObject {
  Q_OBJECT

 public:
  enum class Source { launched, followed };

  // A run to start with start(); nothing runs until then.
  RunController(const LaunchRequest& request, LocalLauncherOptions options, QObject* parent = nullptr);
  // A run on any launcher (cluster runs).
  RunController(const LaunchRequest& request, std::unique_ptr<Launcher> launcher, QObject* parent = nullptr);
  // A run directory to follow; starts reading at once.
  explicit RunController(const QString& run_dir, QObject* parent = nullptr);
  ~RunController() override;

  void start();  // launched runs only
  Source source() const { return source_; }
  RunModel* model() const { return model_; }
  // The launcher of a launched run (nodes(), nodes_changed); null when followed.
  Launcher* launcher() const { return launcher_.get(); }
  QString run_dir() const;
  const LaunchRequest& request() const { return request_; }
  // A launched run whose process is still alive.
  bool is_live() const;
  bool can_stop() const { return is_live(); }
  bool stop_requested() const { return stop_requested_; }
  // The engine's stderr tail (launched runs), for a failure dialog.
  QString stderr_tail() const { return stderr_tail_; }

 public slots:
  // Graceful: SIGTERM, the engine checkpoints and exits (status stopped).
  void stop();

 signals:
  void live_changed(bool live);
  void run_dir_known(const QString& run_dir);
  void finished(int exit_code, medsynth::app::RunStatus status);
  void failed_to_start(const QString& reason);
  void stderr_text(const QString& text);

 private:
  Source source_;
  LaunchRequest request_;
  std::unique_ptr<Launcher> launcher_;
  std::unique_ptr<RunModel> own_model_;     // followed runs
  std::unique_ptr<EventFileTail> tail_;     // followed runs
  RunModel* model_ = nullptr;
  QString stderr_tail_;
  bool stop_requested_ = false;
};

}  // namespace medsynth::app
