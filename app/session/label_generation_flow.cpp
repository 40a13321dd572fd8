#include "app/session/label_generation_flow.hpp"

#include <QDir>

#include "app/cluster/launcher_factory.hpp"
#include "app/launch/local_launcher.hpp"
#include "app/launch/maisi_generate_request.hpp"
#include "app/session/run_controller.hpp"

namespace medsynth::app {

LabelGenerationFlow::LabelGenerationFlow(QObject* parent, QString engine)
    : QObject(parent), engine_(std::move(engine)) {}

LabelGenerationFlow::~LabelGenerationFlow() {
  // A generation still running is left to its launcher's own teardown.
  if (run_) disconnect(run_, nullptr, this, nullptr);
}

QString LabelGenerationFlow::program() const { return engine_.isEmpty() ? LocalLauncher::engine_path() : engine_; }

bool LabelGenerationFlow::is_running() const { return running_; }

RunController* LabelGenerationFlow::run() const { return run_.data(); }

void LabelGenerationFlow::request(const LabelGenerationRequest& request) {
  QStringList problems = request.validate();
  if (program().isEmpty()) problems << QStringLiteral("engine: ") + LocalLauncher::engine_not_found();
  if (!problems.isEmpty()) {
    emit failed(problems.join(QLatin1Char('\n')));
    return;
  }
  if (running_) {
    waiting_ = request;
    return;
  }
  start(request);
}

void LabelGenerationFlow::cancel() {
  waiting_.reset();
  if (run_ && running_) run_->stop();
}

void LabelGenerationFlow::start(const LabelGenerationRequest& request) {
  current_ = request;
  running_ = true;
  if (run_ && !run_->is_live()) run_->deleteLater();  // the last one's run: its pair is on disk
  LocalLauncherOptions options;
  options.engine = program();
  const LaunchRequest launch = label_generation_launch_request(request);
  auto* run = new RunController(launch, make_launcher(nullptr, nullptr, options), this);
  run_ = run;
  connect(run, &RunController::failed_to_start, this, [this](const QString& reason) {
    running_ = false;
    emit failed(QStringLiteral("generate did not start: %1").arg(reason));
  });
  connect(run, &RunController::finished, this, &LabelGenerationFlow::on_finished);
  emit started(run, local_engine_arguments(launch, options));
  run->start();
}

void LabelGenerationFlow::on_finished(int exit_code, RunStatus status) {
  if (!running_) return;  // failed to start: reported already
  running_ = false;
  if (status == RunStatus::finished) {
    const GeneratedFiles files = find_generated_files_in(current_.output_dir);
    if (files.image.isEmpty())
      emit failed(QStringLiteral("generate finished but wrote no image into %1").arg(current_.output_dir));
    else
      emit succeeded(files.image, files.label);
  } else if (status == RunStatus::stopped) {
    emit failed(QStringLiteral("generate stopped"));
  } else {
    QString message = run_ ? run_->model()->failure_message() : QString();
    if (message.isEmpty() && run_) message = run_->stderr_tail();
    emit failed(QStringLiteral("generate failed (exit %1):\n%2").arg(exit_code).arg(message));
  }
  if (waiting_) {
    const LabelGenerationRequest next = *waiting_;
    waiting_.reset();
    start(next);
  }
}

}  // namespace medsynth::app
