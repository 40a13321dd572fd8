// LocalLauncher: the engine as a child process, its stdout as the event stream.
#include "app/launch/local_launcher.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

namespace medsynth::app {

namespace {
constexpr int k_stderr_tail_lines = 20;

bool is_executable(const QString& path) {
  const QFileInfo info(path);
  return info.isFile() && info.isExecutable();
}
}  // namespace

QStringList LocalLauncherOptions::validate() const {
  QStringList errors;
  if (stop_grace_ms < 0) errors << QStringLiteral("stop_grace_ms: must be >= 0 (got %1)").arg(stop_grace_ms);
  if (!engine.isEmpty() && !is_executable(engine))
    errors << QStringLiteral("engine: %1: not an executable file").arg(engine);
  return errors;
}

LocalLauncher::LocalLauncher(QObject* parent, LocalLauncherOptions options)
    : Launcher(parent), options_(std::move(options)) {
  kill_timer_.setSingleShot(true);
  connect(&kill_timer_, &QTimer::timeout, this, [this] {
    if (process_ && process_->state() != QProcess::NotRunning) {
      emit stderr_text(QStringLiteral("medsynth console: the engine did not stop within %1 s; killing it")
                           .arg(options_.stop_grace_ms / 1000.0));
      process_->kill();
    }
  });
}

LocalLauncher::~LocalLauncher() {
  if (is_running()) {
    // Closing the console with a run going: give it the same chance to save
    // as stop() (the ui should stop() and wait for finished() first).
    disconnect(process_, nullptr, this, nullptr);
    process_->terminate();
    if (!process_->waitForFinished(options_.stop_grace_ms)) {
      process_->kill();
      process_->waitForFinished(5000);
    }
  }
}

QString LocalLauncher::engine_path() {
  const QString env = qEnvironmentVariable("MEDSYNTH_ENGINE");
  if (!env.isEmpty() && is_executable(env)) return QFileInfo(env).absoluteFilePath();
  if (QCoreApplication::instance()) {
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("medsynth-engine"));
    if (is_executable(beside)) return beside;
  }
  return QStandardPaths::findExecutable(QStringLiteral("medsynth-engine"));
}

QString LocalLauncher::program() const { return options_.engine.isEmpty() ? engine_path() : options_.engine; }

QStringList local_engine_arguments(const LaunchRequest& r, const LocalLauncherOptions& options) {
  QStringList args = options.extra_engine_args;
  if (options.use_launch_verb) {
    args << QStringLiteral("launch") << QStringLiteral("--nproc-per-node") << QString::number(r.nproc_per_node);
    if (r.max_restarts > 0) args << QStringLiteral("--max-restarts") << QString::number(r.max_restarts);
  }
  if (!r.generate_run_dir.isEmpty()) {
    args << QStringLiteral("generate") << r.generate_run_dir << r.overrides << r.generate_arguments
         << QStringLiteral("--json");
    return args;
  }
  args << QStringLiteral("train") << r.job_file << r.overrides << QStringLiteral("--json") << QStringLiteral("--no-progress");
  if (!r.runs_dir.isEmpty()) args << QStringLiteral("--runs-dir") << r.runs_dir;
  if (!r.resume_run_dir.isEmpty()) args << QStringLiteral("--resume") << r.resume_run_dir;
  if (!r.data_path.isEmpty()) args << QStringLiteral("--data") << r.data_path;
  return args;
}

QStringList LocalLauncher::arguments(const LaunchRequest& r) const { return local_engine_arguments(r, options_); }

bool LocalLauncher::is_running() const { return process_ && process_->state() != QProcess::NotRunning; }

qint64 LocalLauncher::process_id() const { return process_ ? process_->processId() : 0; }

void LocalLauncher::start(const LaunchRequest& request) {
  if (is_running()) {
    emit failed_to_start(QStringLiteral("a run is already going (%1)").arg(model_.run_dir()));
    return;
  }
  QStringList errors = request.validate() + options_.validate();
  const QString engine = program();
  if (engine.isEmpty()) errors << QStringLiteral("engine: ") + engine_not_found();
  if (!options_.use_launch_verb && (request.nproc_per_node != 1 || request.max_restarts != 0))
    errors << QStringLiteral("nproc_per_node: several processes need the engine's launch verb");

  if (process_) {
    process_->deleteLater();
    process_ = nullptr;
  }
  if (logs_tail_) logs_tail_->stop();
  model_.clear();
  stop_requested_ = false;
  run_dir_emitted_ = false;
  stderr_lines_.clear();
  stderr_tail_.clear();
  if (!errors.isEmpty()) {
    fail_start(errors.join(QLatin1Char('\n')));
    return;
  }

  begin_event_stream();
  finished_emitted_ = false;
  process_ = new QProcess(this);
  process_->setProgram(engine);
  process_->setArguments(arguments(request));
  connect(process_, &QProcess::readyReadStandardOutput, this, &LocalLauncher::on_stdout);
  connect(process_, &QProcess::readyReadStandardError, this, &LocalLauncher::on_stderr);
  connect(process_, &QProcess::finished, this, &LocalLauncher::on_finished);
  connect(process_, &QProcess::errorOccurred, this, &LocalLauncher::on_error);
  connect(process_, &QProcess::started, this, [this] {
    if (model_.status() == RunStatus::pending) model_.set_status(RunStatus::running);
    emit started();
  });
  process_->start();
}

void LocalLauncher::stop() {
  if (!is_running() || stop_requested_) return;
  stop_requested_ = true;
  process_->terminate();  // SIGTERM: the engine checkpoints and exits 143
  kill_timer_.start(options_.stop_grace_ms);
}

void LocalLauncher::on_stdout() {
  if (!process_) return;
  feed_event_stream(process_->readAllStandardOutput());
  if (!run_dir_emitted_ && !model_.run_dir().isEmpty()) note_run_dir(model_.run_dir());
}

void LocalLauncher::on_stderr() {
  if (!process_) return;
  relay_stderr_lines(stderr_lines_.feed(process_->readAllStandardError()));
}

void LocalLauncher::relay_stderr_lines(const QStringList& lines) {
  static const QRegularExpression run_dir_line(QStringLiteral(R"(run directory:? (\S+?)(;|$))"));
  for (const QString& line : lines) {
    stderr_tail_ << line;
    if (stderr_tail_.size() > k_stderr_tail_lines) stderr_tail_.removeFirst();
    if (!run_dir_emitted_) {
      const auto m = run_dir_line.match(line);
      if (m.hasMatch()) note_run_dir(m.captured(1));
    }
    emit stderr_text(line);
  }
}

void LocalLauncher::note_run_dir(const QString& run_dir) {
  if (run_dir_emitted_) return;
  run_dir_emitted_ = true;
  const QString dir = QDir(run_dir).absolutePath();
  if (model_.run_dir().isEmpty()) model_.set_run_dir(dir);
  emit run_dir_known(dir);
  if (options_.follow_rank_logs) {
    EventFileTailOptions tail;
    tail.follow_events = false;  // the events come from stdout
    logs_tail_ = std::make_unique<EventFileTail>(&model_, tail);
    logs_tail_->start(dir);
  }
}

void LocalLauncher::on_finished(int exit_code, QProcess::ExitStatus exit_status) {
  if (!process_) return;
  feed_event_stream(process_->readAllStandardOutput());
  end_event_stream();
  on_stderr();
  relay_stderr_lines(stderr_lines_.finish());
  finish_run(exit_status == QProcess::CrashExit ? -1 : exit_code, exit_status == QProcess::CrashExit);
}

void LocalLauncher::on_error(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart || !process_) return;  // crashes arrive through finished()
  const QString reason = QStringLiteral("could not start %1: %2").arg(process_->program(), process_->errorString());
  model_.set_status(RunStatus::failed, reason);
  emit failed_to_start(reason);
  if (!std::exchange(finished_emitted_, true)) emit finished(-1, RunStatus::failed);
}

void LocalLauncher::finish_run(int exit_code, bool crashed) {
  kill_timer_.stop();
  if (logs_tail_) {
    // Let the tail read what the ranks wrote last, then stop it.
    auto* tail = logs_tail_.get();
    auto polls = std::make_shared<int>(0);
    connect(tail, &EventFileTail::polled, this, [tail, polls] {
      if (++*polls == 2) tail->stop();
    });
  }
  const QString stderr_text = stderr_tail_.join(QLatin1Char('\n'));
  const RunStatus status = conclude_run(exit_code, crashed, stop_requested_, stderr_text);
  if (!std::exchange(finished_emitted_, true)) emit finished(exit_code, status);
}

QString LocalLauncher::engine_not_found() {
  return QStringLiteral("medsynth-engine not found (set MEDSYNTH_ENGINE, or put it next to medsynth or on PATH)");
}

}  // namespace medsynth::app
