#include "app/session/launch_coordinator.hpp"

#include "app/cluster/launcher_factory.hpp"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include "app/session/run_controller.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

LaunchCoordinator::LaunchCoordinator(JobDocument* document, RunStore* store, QObject* parent)
    : QObject(parent), document_(document), store_(store) {
  // Queued connections and QSignalSpy copy run_opened's and run_ended's arguments.
  static const int registered = [] {
    qRegisterMetaType<RunController*>("medsynth::app::RunController*");
    return 0;
  }();
  Q_UNUSED(registered);
}

LaunchCoordinator::~LaunchCoordinator() {
  // A live run outlives nothing: stop it gracefully; the engine checkpoints.
  for (const QPointer<RunController>& run : runs_) {
    if (run && run->is_live()) run->stop();
  }
}

void LaunchCoordinator::set_runs_dir(const QString& runs_dir) { runs_dir_ = runs_dir; }

RunController* LaunchCoordinator::active() const {
  for (const QPointer<RunController>& run : runs_) {
    if (run && run->is_live()) return run;
  }
  return nullptr;
}

QList<RunController*> LaunchCoordinator::runs() const {
  QList<RunController*> out;
  for (const QPointer<RunController>& run : runs_) {
    if (run) out << run.data();
  }
  return out;
}

QString LaunchCoordinator::job_file_for_launch(QString* error) {
  // A saved, unmodified file is launched as it is (its path shows in the logs).
  if (!document_->path().isEmpty() && !document_->is_modified()) return document_->path();
  if (!temp_dir_) {
    temp_dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/medsynth-console-XXXXXX"));
    if (!temp_dir_->isValid()) {
      *error = tr("Cannot create a temporary folder for the job: %1").arg(temp_dir_->errorString());
      temp_dir_.reset();
      return {};
    }
  }
  QString name = document_->value(QStringLiteral("name")).toString();
  if (name.isEmpty()) name = QStringLiteral("job");
  const bool json = document_->yaml().trimmed().startsWith('{');
  const QString path = temp_dir_->filePath(
      QStringLiteral("%1-%2.%3").arg(name).arg(++temp_counter_).arg(json ? QStringLiteral("json") : QStringLiteral("yaml")));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(document_->yaml().toUtf8()) < 0 || !file.commit()) {
    *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return {};
  }
  return path;
}

RunController* LaunchCoordinator::launch(const LaunchOptions& options) {
  QString why;
  if (!document_->is_launchable(&why)) {
    emit error_message(tr("Cannot launch: %1").arg(why.isEmpty() ? tr("the job has problems") : why));
    return nullptr;
  }
  QString error;
  LaunchRequest request;
  request.job_file = job_file_for_launch(&error);
  if (request.job_file.isEmpty()) {
    emit error_message(error);
    return nullptr;
  }
  request.runs_dir = runs_dir_;
  request.nproc_per_node = options.nproc_per_node;
  request.max_restarts = options.max_restarts;
  request.pending_reason = document_->pending_reason();
  return start(request);
}

RunController* LaunchCoordinator::resume(const QString& run_dir, const LaunchOptions& options) {
  LaunchRequest request;
  // The resolved job of the run itself: resuming with another model is refused by the engine anyway.
  request.job_file = QDir(run_dir).filePath(QLatin1String(k_job_file));
  request.runs_dir = QFileInfo(run_dir).absolutePath();
  request.resume_run_dir = run_dir;
  request.nproc_per_node = options.nproc_per_node;
  request.max_restarts = options.max_restarts;
  return start(request);
}

RunController* LaunchCoordinator::start(const LaunchRequest& request) {
  if (target_ && target_->kind == ClusterKind::kubernetes) {
    emit error_message(tr("%1 is a Kubernetes cluster: export its manifests with `medsynth run --cluster FILE JOB --k8s-manifest OUT`.")
                           .arg(target_->name));
    return nullptr;
  }
  if (RunController* live = active()) {
    emit error_message(tr("A run is in progress (%1): stop it first.").arg(live->run_dir()));
    return nullptr;
  }
  LaunchRequest on_target = request;
  on_target.paths_on_nodes = target_.has_value();
  const QStringList problems = on_target.validate();
  if (!problems.isEmpty()) {
    emit error_message(tr("Cannot launch: %1").arg(problems.join(QStringLiteral("; "))));
    return nullptr;
  }
  if (target_) on_target.nproc_per_node = target_->nproc_per_node;  // the cluster's, not this machine's
  auto* run =
      new RunController(on_target, make_launcher(target_ ? &*target_ : nullptr, delegate_, launcher_options_), this);
  runs_ << run;
  connect(run, &RunController::run_dir_known, this, [this](const QString& dir) {
    if (store_) store_->set_active(dir, true);
    emit status_message(tr("Run directory: %1").arg(QDir::toNativeSeparators(dir)));
  });
  connect(run, &RunController::failed_to_start, this, [this](const QString& reason) {
    emit error_message(tr("The engine did not start: %1").arg(reason));
  });
  connect(run, &RunController::live_changed, this, &LaunchCoordinator::report_active);
  connect(run, &RunController::finished, this, [this, run](int exit_code, RunStatus status) {
    if (store_) {
      if (!run->run_dir().isEmpty()) store_->set_active(run->run_dir(), false);
      store_->refresh();
    }
    emit status_message(tr("Run %1 (exit code %2).").arg(to_string(status)).arg(exit_code));
    emit run_ended(run, status);
  });
  emit run_opened(run);
  run->start();
  report_active();  // at once: a second click on Launch must not start a second run
  emit status_message(target_ ? tr("Launching %1 on %2 (%3)…").arg(QFileInfo(request.job_file).fileName(), target_->name, to_string(target_->kind))
                              : tr("Launching %1 with %n process(es)…", nullptr, request.nproc_per_node).arg(QFileInfo(request.job_file).fileName()));
  return run;
}

RunController* LaunchCoordinator::open_run(const QString& run_dir) {
  const QFileInfo info(run_dir);
  if (!info.isDir()) {
    emit error_message(tr("Not a run directory: %1").arg(QDir::toNativeSeparators(run_dir)));
    return nullptr;
  }
  const QString clean = QDir::cleanPath(info.absoluteFilePath());
  for (const QPointer<RunController>& run : runs_) {
    if (run && QDir::cleanPath(run->run_dir()) == clean) {
      emit run_opened(run);  // the window brings its tab to the front
      return run;
    }
  }
  auto* run = new RunController(clean, this);
  runs_ << run;
  emit run_opened(run);
  return run;
}

bool LaunchCoordinator::close_run(RunController* run) {
  if (!run) return true;
  if (run->is_live()) {
    emit error_message(tr("The run is still going: stop it before closing its tab."));
    return false;
  }
  runs_.removeAll(QPointer<RunController>(run));
  run->deleteLater();
  return true;
}

void LaunchCoordinator::report_active() {
  const bool live = active() != nullptr;
  if (live == reported_active_) return;
  reported_active_ = live;
  emit active_changed(live);
}

void LaunchCoordinator::stop_active() {
  if (RunController* run = active()) {
    run->stop();
    emit status_message(tr("Stopping: the engine writes a checkpoint, then exits…"));
  }
}

}  // namespace medsynth::app
