// Runs one one-shot engine command on this machine (import-maisi,
// prepare-label, generate of one case, export-dicom, evaluate,
// dataset-card): a QProcess of `<engine> <verb> ...` whose output is relayed
// line by line (LineSplitter: a line without end cannot grow the console's
// memory), and whose end is an exit code or a crash. The one place the
// console's flows start such a command; a training or generation that is a
// run (event stream, monitor) goes through make_launcher and RunController
// instead (issue 52 item 2). Asynchronous, GUI thread, no widgets.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "app/launch/line_splitter.hpp"

namespace medsynth::app {

struct EngineStepOptions {
  QString program;            // the engine (LocalLauncher::engine_path() or a test's)
  bool merge_stdout = false;  // relay stdout with stderr (import-maisi writes its steps there)
};

class EngineStep : public QObject {
  Q_OBJECT

 public:
  explicit EngineStep(EngineStepOptions options, QObject* parent = nullptr);
  ~EngineStep() override;

  // Starts `program arguments...`; refused (false) while one is running.
  bool start(const QStringList& arguments);
  // SIGTERM: the engine stops, removing what it had not finished; finished() follows.
  void stop();
  bool is_running() const;
  QString program() const { return options_.program; }

 signals:
  void line(const QString& text);
  // The process could not be started (no such file, not executable): no finished() follows.
  void failed_to_start(const QString& reason);
  // exit_code is meaningless when crashed (killed by a signal).
  void finished(int exit_code, bool crashed);

 private:
  void relay(const QByteArray& chunk);

  EngineStepOptions options_;
  QProcess process_;
  LineSplitter lines_;
};

}  // namespace medsynth::app
