#include "app/launch/engine_step.hpp"

namespace medsynth::app {

EngineStep::EngineStep(EngineStepOptions options, QObject* parent) : QObject(parent), options_(std::move(options)) {
  process_.setProgram(options_.program);
  process_.setProcessChannelMode(options_.merge_stdout ? QProcess::MergedChannels : QProcess::SeparateChannels);
  // Only what the engine says on stderr (and stdout when merged) is relayed;
  // a verb's stdout is otherwise not read, so it goes nowhere.
  if (!options_.merge_stdout) process_.setStandardOutputFile(QProcess::nullDevice());
  connect(&process_, &QProcess::readyReadStandardOutput, this, [this] { relay(process_.readAllStandardOutput()); });
  connect(&process_, &QProcess::readyReadStandardError, this, [this] { relay(process_.readAllStandardError()); });
  connect(&process_, &QProcess::finished, this, [this](int exit_code, QProcess::ExitStatus status) {
    relay(process_.readAllStandardOutput());
    relay(process_.readAllStandardError());
    for (const QString& text : lines_.finish()) emit line(text);
    emit finished(exit_code, status == QProcess::CrashExit);
  });
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      emit failed_to_start(QStringLiteral("could not start %1: %2").arg(options_.program, process_.errorString()));
  });
}

EngineStep::~EngineStep() {
  // The flow that owns the step is going (its window closed): nothing is
  // left to report to, so the command goes with it.
  if (process_.state() == QProcess::NotRunning) return;
  process_.disconnect(this);
  process_.kill();
  process_.waitForFinished(5000);
}

bool EngineStep::start(const QStringList& arguments) {
  if (is_running()) return false;
  lines_.clear();
  process_.setArguments(arguments);
  process_.start();
  return true;
}

void EngineStep::stop() {
  if (is_running()) process_.terminate();
}

bool EngineStep::is_running() const { return process_.state() != QProcess::NotRunning; }

void EngineStep::relay(const QByteArray& chunk) {
  if (chunk.isEmpty()) return;
  for (const QString& text : lines_.feed(chunk)) emit line(text);
}

}  // namespace medsynth::app
