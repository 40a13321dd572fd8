// Launcher: the shared part of every launcher (the model it owns).
#include "app/launch/launcher.hpp"

#include <QFile>

#include "app/runs/rank_log_reader.hpp"

namespace medsynth::app {

Launcher::Launcher(QObject* parent) : QObject(parent) {
  static const int registered = [] {
    qRegisterMetaType<RunStatus>("medsynth::app::RunStatus");
    return 0;
  }();
  Q_UNUSED(registered);
}

Launcher::~Launcher() = default;

void Launcher::begin_event_stream() { event_reader_ = std::make_unique<EventStreamReader>(&model_); }

void Launcher::feed_event_stream(QByteArrayView chunk) {
  if (event_reader_) event_reader_->feed(chunk);
}

void Launcher::end_event_stream() {
  if (event_reader_) event_reader_->finish();
}

}  // namespace medsynth::app

namespace medsynth::app {

void Launcher::fail_start(const QString& reason) {
  model_.set_status(RunStatus::failed, reason);
  emit failed_to_start(reason);
  emit finished(-1, RunStatus::failed);
}

bool Launcher::prepare_start(const LaunchRequest& request, QStringList problems, QByteArray* job_text) {
  problems = request.validate() + problems;
  if (problems.isEmpty()) {
    QFile job(request.job_file);
    if (!job.open(QIODevice::ReadOnly)) problems << QStringLiteral("job_file: %1: %2").arg(request.job_file, job.errorString());
    else *job_text = job.readAll();
  }
  model_.clear();
  if (problems.isEmpty()) return true;
  fail_start(problems.join(QLatin1Char('\n')));
  return false;
}

void Launcher::relay_log_line(const QString& source, const QString& line) {
  emit stderr_text(source.isEmpty() ? line : QStringLiteral("[%1] %2").arg(source, line));
  if (auto parsed = parse_rank_log_line(line)) {
    model_.mark_log_file_followed(parsed->rank);  // the event stream's copies of warnings are dropped
    model_.append_log(*parsed);
  }
}

RunStatus Launcher::conclude_run(int exit_code, bool crashed, bool stop_requested, const QString& stderr_text) {
  if (model_.is_terminal()) return model_.status();
  RunStatus status;
  if (crashed) {
    status = stop_requested ? RunStatus::stopped : RunStatus::failed;
    model_.set_status(status, stop_requested ? QStringLiteral("killed after not stopping within the grace period")
                                             : QStringLiteral("the engine crashed or was killed\n") + stderr_text);
  } else if (exit_code == 143 || exit_code == 130) {
    status = RunStatus::stopped;
    model_.set_status(status, QStringLiteral("stopped by a signal (exit code %1)").arg(exit_code));
  } else {
    status = RunStatus::failed;
    model_.set_status(status, QStringLiteral("the engine exited with code %1 without reporting the end of the run%2")
                                  .arg(exit_code)
                                  .arg(stderr_text.isEmpty() ? QString() : QStringLiteral(":\n") + stderr_text));
  }
  return status;
}

void Launcher::set_node_state(int index, const QString& state, const QString& detail, int exit_code) {
  if (index < 0 || index >= nodes_.size()) return;
  NodeState& n = nodes_[index];
  n.state = state;
  n.detail = detail;
  if (exit_code != -1 || state == QStringLiteral("exited")) n.exit_code = exit_code;
  emit nodes_changed();
}

}  // namespace medsynth::app
