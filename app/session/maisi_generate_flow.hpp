// Runs "Generate CT from MAISI weights": the engine's import-maisi into a new
// run directory, then generate with the request's size, spacing, label map
// and processes (maisi_generate_request.hpp builds both command lines). The
// engine is found like every local launch (LocalLauncher::engine_path(), or
// the one given). Asynchronous: QProcess signals on the caller's (GUI) thread;
// nothing blocks. Progress is the engine's stderr relayed line by line; a
// failure carries the command's last stderr lines (the engine's own message).
// Used by the ui's MaisiGenerateDialog; tested in tests/app.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "app/launch/line_splitter.hpp"
#include "app/launch/maisi_generate_request.hpp"

namespace medsynth::app {

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

 signals:
  // A command starts: "import-maisi" or "generate", with its full command line.
  void stage_started(const QString& stage, const QString& command_line);
  void output_line(const QString& line);  // the engine's stderr, one line each
  void succeeded(const QString& image_path, const QString& label_path);
  void failed(const QString& message);

 private:
  void run(const QString& stage, const QStringList& arguments);
  void on_finished(int exit_code, QProcess::ExitStatus status);
  void fail(const QString& message);

  QString engine_;
  MaisiGenerateRequest request_;
  Stage stage_ = Stage::idle;
  QProcess* process_ = nullptr;
  QString stage_name_;
  LineSplitter stderr_lines_;
  QStringList stderr_tail_;
  bool cancel_requested_ = false;
};

}  // namespace medsynth::app
