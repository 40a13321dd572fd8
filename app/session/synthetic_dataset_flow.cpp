#include "app/session/synthetic_dataset_flow.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "app/launch/engine_step.hpp"
#include "app/launch/local_launcher.hpp"

namespace medsynth::app {

namespace {

constexpr int k_tail_lines = 8;

DatasetCaseState state_of_step(const QString& name) {
  if (name == QLatin1String("prepare-label")) return DatasetCaseState::preparing;
  if (name == QLatin1String("export-dicom")) return DatasetCaseState::exporting;
  return DatasetCaseState::generating;
}

// "quality check passed (try 2 of 2)" or "quality check failed: liver 212 HU outside [-21.6, 156.3]"
QString quality_verdict(const QString& report_path) {
  QFile file(report_path);
  if (!file.open(QIODevice::ReadOnly)) return QStringLiteral("no quality report (%1)").arg(report_path);
  const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
  const QJsonArray tries = report.value(QStringLiteral("tries")).toArray();
  if (report.value(QStringLiteral("passed")).toBool())
    return QStringLiteral("quality check passed (seed %1, try %2)")
        .arg(report.value(QStringLiteral("seed")).toInt())
        .arg(tries.size());
  QStringList outliers;
  if (!tries.isEmpty())
    for (const QJsonValue organ : tries.last().toObject().value(QStringLiteral("organs")).toArray()) {
      const QJsonObject o = organ.toObject();
      if (!o.value(QStringLiteral("outlier")).toBool()) continue;
      outliers << QStringLiteral("%1 %2 HU outside [%3, %4]")
                      .arg(o.value(QStringLiteral("organ")).toString())
                      .arg(o.value(QStringLiteral("median_hu")).toDouble(), 0, 'f', 1)
                      .arg(o.value(QStringLiteral("low_hu")).toDouble(), 0, 'f', 1)
                      .arg(o.value(QStringLiteral("high_hu")).toDouble(), 0, 'f', 1);
    }
  return QStringLiteral("quality check failed after %1 tries: %2")
      .arg(tries.size())
      .arg(outliers.join(QStringLiteral("; ")));
}

}  // namespace

QString dataset_case_state_name(DatasetCaseState state) {
  switch (state) {
    case DatasetCaseState::waiting:
      return QStringLiteral("waiting");
    case DatasetCaseState::preparing:
      return QStringLiteral("preparing the label");
    case DatasetCaseState::generating:
      return QStringLiteral("generating");
    case DatasetCaseState::exporting:
      return QStringLiteral("exporting DICOM");
    case DatasetCaseState::done:
      return QStringLiteral("done");
    case DatasetCaseState::failed:
      return QStringLiteral("failed");
  }
  return {};
}

SyntheticDatasetFlow::SyntheticDatasetFlow(QObject* parent, QString engine)
    : QObject(parent), engine_(std::move(engine)) {}

// A running command is killed by its EngineStep, a child.
SyntheticDatasetFlow::~SyntheticDatasetFlow() {
  if (runner_) disconnect(runner_, nullptr, this, nullptr);
}

QString SyntheticDatasetFlow::program() const { return engine_.isEmpty() ? LocalLauncher::engine_path() : engine_; }

DatasetCaseState SyntheticDatasetFlow::state(int index) const {
  return index >= 0 && index < static_cast<int>(states_.size()) ? states_[static_cast<std::size_t>(index)]
                                                                : DatasetCaseState::waiting;
}

void SyntheticDatasetFlow::start(const SyntheticDatasetRequest& request) {
  if (running_) {
    emit failed(QStringLiteral("a synthetic dataset is already being made"));
    return;
  }
  QStringList problems = request.validate();
  if (program().isEmpty()) problems << QStringLiteral("engine: ") + LocalLauncher::engine_not_found();
  if (!problems.isEmpty()) {
    emit failed(problems.join(QLatin1Char('\n')));
    return;
  }
  plan_ = plan_synthetic_dataset(request);
  states_.assign(plan_.cases.size(), DatasetCaseState::waiting);
  case_ = 0;
  step_ = 0;
  done_ = failed_cases_ = 0;
  cancel_requested_ = false;
  running_ = true;
  QDir().mkpath(request.output_dir);
  run_next();
}

void SyntheticDatasetFlow::cancel() {
  if (!running_) return;
  cancel_requested_ = true;
  if (runner_) runner_->stop();
}

void SyntheticDatasetFlow::set_case(int index, DatasetCaseState state, const QString& detail) {
  states_[static_cast<std::size_t>(index)] = state;
  emit case_changed(index, state, detail);
}

void SyntheticDatasetFlow::run_next() {
  const int cases = static_cast<int>(plan_.cases.size());
  if (case_ < cases) {
    const DatasetCase& c = plan_.cases[static_cast<std::size_t>(case_)];
    if (step_ < c.steps.size()) {
      set_case(case_, state_of_step(c.steps[step_].name));
      return run_step(c.steps[step_]);
    }
    ++done_;
    set_case(case_, DatasetCaseState::done, case_summary(c));
    ++case_;
    step_ = 0;
    return run_next();
  }
  if (done_ == 0) return fail(QStringLiteral("no case was generated (%1 failed)").arg(failed_cases_));
  if (step_ < plan_.finish.size()) return run_step(plan_.finish[step_]);
  running_ = false;
  emit finished(plan_.card, done_, failed_cases_);
}

QString SyntheticDatasetFlow::case_summary(const DatasetCase& c) const {
  QStringList parts{QFileInfo(c.image).fileName()};
  if (!c.quality_report.isEmpty()) parts << quality_verdict(c.quality_report);
  if (!c.dicom_dir.isEmpty()) parts << QStringLiteral("DICOM %1").arg(QDir::toNativeSeparators(c.dicom_dir));
  return parts.join(QStringLiteral(" · "));
}

void SyntheticDatasetFlow::run_step(const DatasetStep& step) {
  if (!runner_) {
    runner_ = new EngineStep({.program = program()}, this);
    connect(runner_, &EngineStep::line, this, [this](const QString& line) {
      stderr_tail_ << line;
      while (stderr_tail_.size() > k_tail_lines) stderr_tail_.removeFirst();
      emit output_line(line);
    });
    connect(runner_, &EngineStep::finished, this, &SyntheticDatasetFlow::on_step_finished);
    connect(runner_, &EngineStep::failed_to_start, this, &SyntheticDatasetFlow::fail);
  }
  stderr_tail_.clear();
  emit step_started(case_ < static_cast<int>(plan_.cases.size()) ? case_ : -1, step.name, step.arguments);
  runner_->start(step.arguments);
}

void SyntheticDatasetFlow::on_step_finished(int exit_code, bool crashed) {
  if (!running_) return;
  if (cancel_requested_) return fail(QStringLiteral("stopped"));
  const bool ok = !crashed && exit_code == 0;
  const int cases = static_cast<int>(plan_.cases.size());
  if (case_ < cases) {
    if (!ok) {
      ++failed_cases_;
      const QString name = plan_.cases[static_cast<std::size_t>(case_)].steps[step_].name;
      set_case(
          case_, DatasetCaseState::failed,
          QStringLiteral("%1 failed (exit %2): %3").arg(name).arg(exit_code).arg(stderr_tail_.join(QLatin1Char('\n'))));
      ++case_;
      step_ = 0;
    } else {
      ++step_;
    }
    return run_next();
  }
  if (!ok)
    return fail(QStringLiteral("%1 failed (exit %2):\n%3")
                    .arg(plan_.finish[step_].name)
                    .arg(exit_code)
                    .arg(stderr_tail_.join(QLatin1Char('\n'))));
  ++step_;
  run_next();
}

void SyntheticDatasetFlow::fail(const QString& message) {
  if (!running_) return;
  running_ = false;
  emit failed(message);
}

}  // namespace medsynth::app
