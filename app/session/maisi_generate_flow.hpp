// Runs "Generate CT from MAISI weights": the engine's import-maisi into a new
// run directory (a one-shot command), then (with finetune_data) a fine-tune
// run from the imported networks that generates at its end, else generate with the request's size,
// spacing, label map and processes as a run like every other: a
// RunController over a LocalLauncher that follows generate's event stream
// (--json), so its progress and images reach a RunModel, and the console
// shows it in a run monitor (generation_started). The engine is found like
// every local launch (LocalLauncher::engine_path(), or the one given).
// Asynchronous, on the caller's (GUI) thread; nothing blocks. The engine's
// stderr is relayed line by line; a failure carries its last lines (the
// engine's own message). Used by the ui's MaisiGenerateDialog; tested in tests/app.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "app/launch/maisi_generate_request.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

class EngineStep;
class RunController;

class MaisiGenerateFlow : public QObject {
  Q_OBJECT

 public:
  enum class Stage { idle, importing, generating, done, failed };

  // engine: empty = LocalLauncher::engine_path() at start().
  explicit MaisiGenerateFlow(QObject* parent = nullptr, QString engine = {});
  ~MaisiGenerateFlow() override;

  // Validates, then runs import-maisi and generate. An invalid request or a
  // missing engine fails at once (failed is emitted before start returns).
  void start(const MaisiGenerateRequest& request);
  // Terminates the running command; failed("… stopped") follows.
  void cancel();

  bool is_running() const;
  Stage stage() const { return stage_; }
  QString program() const;
  const MaisiGenerateRequest& request() const { return request_; }
  // The generate step's run (null before it starts). A child of the flow;
  // a monitor tab that shows it may close it (the console deletes a closed
  // run's controller), hence the guarded pointer.
  RunController* generation() const;

 signals:
  // A command starts: "import-maisi", "fine-tune" or "generate", with its full command line.
  void stage_started(const QString& stage, const QString& command_line);
  void output_line(const QString& line);  // the engine's stderr, one line each
  // The generate (or fine-tune) step started as a run: show it like any run (a monitor tab).
  void generation_started(medsynth::app::RunController* run);
  void succeeded(const QString& image_path, const QString& label_path);
  void failed(const QString& message);

 private:
  void run_import();
  void on_import_finished(int exit_code, bool crashed);
  void start_generation();
  void on_generation_finished(int exit_code, RunStatus status);
  void keep_line(const QString& line);
  void fail(const QString& message);

  QString engine_;
  MaisiGenerateRequest request_;
  Stage stage_ = Stage::idle;
  EngineStep* import_ = nullptr;        // import-maisi, a child
  QPointer<RunController> generation_;  // generate
  QString stage_name_;
  QStringList stderr_tail_;
  bool cancel_requested_ = false;
};

}  // namespace medsynth::app
