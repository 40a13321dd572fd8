#include "app/session/run_controller.hpp"

#include "app/cluster/launcher_factory.hpp"

#include <QDir>
#include <QFileInfo>

namespace medsynth::app {

namespace {
constexpr qsizetype k_stderr_tail_chars = 8000;
}

RunController::RunController(const LaunchRequest& request, LocalLauncherOptions options, QObject* parent)
    : RunController(request, make_launcher(nullptr, nullptr, options), parent) {}

RunController::RunController(const LaunchRequest& request, std::unique_ptr<Launcher> launcher, QObject* parent)
    : QObject(parent), source_(Source::launched), request_(request), launcher_(std::move(launcher)) {
  model_ = launcher_->model();
  connect(launcher_.get(), &Launcher::started, this, [this] { emit live_changed(true); });
  connect(launcher_.get(), &Launcher::run_dir_known, this, &RunController::run_dir_known);
  connect(launcher_.get(), &Launcher::stderr_text, this, [this](const QString& text) {
    stderr_tail_ += text;
    if (!stderr_tail_.endsWith('\n')) stderr_tail_ += '\n';
    if (stderr_tail_.size() > k_stderr_tail_chars) stderr_tail_ = stderr_tail_.right(k_stderr_tail_chars);
    emit stderr_text(text);
  });
  connect(launcher_.get(), &Launcher::failed_to_start, this, &RunController::failed_to_start);
  connect(launcher_.get(), &Launcher::finished, this, [this](int exit_code, RunStatus status) {
    emit live_changed(false);
    emit finished(exit_code, status);
  });
}

RunController::RunController(const QString& run_dir, QObject* parent) : QObject(parent), source_(Source::followed) {
  own_model_ = std::make_unique<RunModel>();
  model_ = own_model_.get();
  const QString absolute = QDir::cleanPath(QFileInfo(run_dir).absoluteFilePath());
  model_->set_run_dir(absolute);
  tail_ = std::make_unique<EventFileTail>(model_);
  tail_->start(absolute);
}

RunController::~RunController() {
  // The tail's worker feeds the model: stop it before the model goes.
  if (tail_) tail_->stop();
  tail_.reset();
}

void RunController::start() {
  if (!launcher_ || launcher_->is_running()) return;
  stop_requested_ = false;
  stderr_tail_.clear();
  launcher_->start(request_);
}

QString RunController::run_dir() const {
  if (!model_->run_dir().isEmpty()) return model_->run_dir();
  return tail_ ? tail_->run_dir() : QString();
}

bool RunController::is_live() const { return launcher_ && launcher_->is_running(); }

void RunController::stop() {
  if (!is_live()) return;
  stop_requested_ = true;
  launcher_->stop();
}

}  // namespace medsynth::app
