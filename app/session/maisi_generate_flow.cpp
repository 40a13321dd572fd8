#include "app/session/maisi_generate_flow.hpp"

#include <QDir>
#include <QFileInfo>

#include "app/cluster/launcher_factory.hpp"
#include "app/launch/engine_step.hpp"
#include "app/launch/local_launcher.hpp"
#include "app/session/run_controller.hpp"

namespace medsynth::app {

namespace {

constexpr int k_tail_lines = 12;

QString quoted(const QString& arg) {
  return arg.contains(QLatin1Char(' ')) || arg.isEmpty() ? QLatin1Char('\'') + arg + QLatin1Char('\'') : arg;
}

QString command_line(const QString& program, const QStringList& args) {
  QStringList parts{quoted(program)};
  for (const QString& a : args) parts << quoted(a);
  return parts.join(QLatin1Char(' '));
}

}  // namespace

MaisiGenerateFlow::MaisiGenerateFlow(QObject* parent, QString engine) : QObject(parent), engine_(std::move(engine)) {}

MaisiGenerateFlow::~MaisiGenerateFlow() {
  // A running import-maisi is killed by its EngineStep, a child.
  if (import_) disconnect(import_, nullptr, this, nullptr);
  // A generation still running is left to its launcher's own teardown.
  if (generation_) disconnect(generation_, nullptr, this, nullptr);
}

QString MaisiGenerateFlow::program() const { return engine_.isEmpty() ? LocalLauncher::engine_path() : engine_; }

RunController* MaisiGenerateFlow::generation() const { return generation_.data(); }

bool MaisiGenerateFlow::is_running() const { return (import_ && import_->is_running()) || stage_ == Stage::generating; }

void MaisiGenerateFlow::start(const MaisiGenerateRequest& request) {
  if (is_running()) {
    emit failed(QStringLiteral("a MAISI generation is already running (%1)").arg(request_.run_dir));
    return;
  }
  request_ = request;
  cancel_requested_ = false;
  stage_ = Stage::idle;
  QStringList problems = request.validate();
  const QString engine = program();
  if (engine.isEmpty()) problems << QStringLiteral("engine: ") + LocalLauncher::engine_not_found();
  if (!problems.isEmpty()) return fail(problems.join(QLatin1Char('\n')));
  if (const QString parent = QFileInfo(request.run_dir).absolutePath(); !QDir().mkpath(parent))
    return fail(QStringLiteral("run_dir: cannot create the runs folder %1").arg(parent));
  stage_ = Stage::importing;
  run_import();
}

void MaisiGenerateFlow::cancel() {
  if (!is_running()) return;
  cancel_requested_ = true;
  if (stage_ == Stage::generating && generation_)
    generation_->stop();  // SIGTERM through the launcher; finished() follows
  else if (import_)
    import_->stop();
}

void MaisiGenerateFlow::keep_line(const QString& line) {
  stderr_tail_ << line;
  if (stderr_tail_.size() > k_tail_lines) stderr_tail_.removeFirst();
  emit output_line(line);
}

void MaisiGenerateFlow::run_import() {
  if (import_) import_->deleteLater();
  stage_name_ = QStringLiteral("import-maisi");
  stderr_tail_.clear();
  const QStringList arguments = maisi_import_arguments(request_);
  import_ = new EngineStep({.program = program(), .merge_stdout = true}, this);
  connect(import_, &EngineStep::line, this, &MaisiGenerateFlow::keep_line);
  connect(import_, &EngineStep::finished, this, &MaisiGenerateFlow::on_import_finished);
  connect(import_, &EngineStep::failed_to_start, this, &MaisiGenerateFlow::fail);
  emit stage_started(stage_name_, command_line(program(), arguments));
  import_->start(arguments);
}

void MaisiGenerateFlow::on_import_finished(int exit_code, bool crashed) {
  if (cancel_requested_) return fail(QStringLiteral("%1 stopped").arg(stage_name_));
  if (crashed || exit_code != 0) {
    const QString how = crashed ? QStringLiteral("crashed") : QStringLiteral("failed (exit %1)").arg(exit_code);
    // The engine's own message ("medsynth-engine: error: …") is its last lines.
    return fail(QStringLiteral("%1 %2:\n%3").arg(stage_name_, how, stderr_tail_.join(QLatin1Char('\n'))));
  }
  start_generation();
}

// The generate step is a run: LocalLauncher (the one make_launcher picks for
// this machine) starts `launch ... generate RUN ... --json` and feeds the
// event stream into the run's model, which a monitor can show. With data to
// fine-tune on, the run is `train RUN --data ...` instead: a new ldm run from
// the imported networks (encode, diffusion, generate stages), shown the same way.
void MaisiGenerateFlow::start_generation() {
  const bool finetune = !request_.finetune_data.isEmpty();
  stage_ = Stage::generating;
  stage_name_ = finetune ? QStringLiteral("fine-tune") : QStringLiteral("generate");
  stderr_tail_.clear();
  LocalLauncherOptions options;
  options.engine = program();
  const LaunchRequest launch =
      finetune ? maisi_finetune_launch_request(request_) : maisi_generate_launch_request(request_);
  generation_ = new RunController(launch, make_launcher(nullptr, nullptr, options), this);
  connect(generation_, &RunController::stderr_text, this, [this](const QString& text) {
    for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) keep_line(line);
  });
  connect(generation_, &RunController::failed_to_start, this,
          [this](const QString& reason) { fail(QStringLiteral("%1 did not start: %2").arg(stage_name_, reason)); });
  connect(generation_, &RunController::finished, this, &MaisiGenerateFlow::on_generation_finished);
  emit stage_started(stage_name_, command_line(program(), local_engine_arguments(launch, options)));
  emit generation_started(generation_);
  generation_->start();
}

void MaisiGenerateFlow::on_generation_finished(int exit_code, RunStatus status) {
  if (stage_ != Stage::generating) return;  // failed to start: reported already
  if (cancel_requested_ || status == RunStatus::stopped) return fail(QStringLiteral("%1 stopped").arg(stage_name_));
  if (status != RunStatus::finished) {
    const QString message = generation_ ? generation_->model()->failure_message() : QString();
    return fail(QStringLiteral("%1 failed (exit %2):\n%3")
                    .arg(stage_name_)
                    .arg(exit_code)
                    .arg(message.isEmpty() ? stderr_tail_.join(QLatin1Char('\n')) : message));
  }
  // A fine-tune run is a new run directory, which its run_started named.
  const QString images_run =
      request_.finetune_data.isEmpty() || !generation_ ? request_.run_dir : generation_->run_dir();
  const GeneratedFiles files = find_generated_files(images_run);
  if (files.image.isEmpty())
    return fail(QStringLiteral("%1 finished but wrote no image into %2/output").arg(stage_name_, images_run));
  stage_ = Stage::done;
  emit succeeded(files.image, files.label);
}

void MaisiGenerateFlow::fail(const QString& message) {
  if (stage_ == Stage::failed) return;
  stage_ = Stage::failed;
  emit failed(message);
}

}  // namespace medsynth::app
