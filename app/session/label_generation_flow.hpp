// Runs "Generate from this label" (issue 39.2) through the normal launcher:
// a RunController over LocalLauncher follows `generate RUN --label MAP
// --output-dir OUT --json`, so its progress reaches a RunModel like any run,
// and the pair it wrote is reported when it finishes. The label editor asks
// after each edit; while one generation runs, the newest request waits (an
// older waiting one is dropped: only the latest edit is worth generating)
// and starts when the running one ends. Asynchronous, GUI thread, no widgets.
#pragma once

#include <optional>

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "app/launch/label_generation_request.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

class RunController;

class LabelGenerationFlow : public QObject {
  Q_OBJECT

 public:
  // engine: empty = LocalLauncher::engine_path().
  explicit LabelGenerationFlow(QObject* parent = nullptr, QString engine = {});
  ~LabelGenerationFlow() override;

  // Starts now, or after the running generation (replacing a waiting one).
  // An invalid request or a missing engine fails at once.
  void request(const LabelGenerationRequest& request);
  // Stops the running generation and drops a waiting one.
  void cancel();

  bool is_running() const;
  bool has_waiting() const { return waiting_.has_value(); }
  // The running (or last) generation's run; null before the first.
  RunController* run() const;
  QString program() const;

 signals:
  // A generation started: its run (show its progress) and the engine's arguments.
  void started(medsynth::app::RunController* run, const QStringList& arguments);
  void succeeded(const QString& image_path, const QString& label_path);
  void failed(const QString& message);

 private:
  void start(const LabelGenerationRequest& request);
  void on_finished(int exit_code, RunStatus status);

  QString engine_;
  LabelGenerationRequest current_;
  std::optional<LabelGenerationRequest> waiting_;
  QPointer<RunController> run_;
  bool running_ = false;
};

}  // namespace medsynth::app
