// The run monitor's header texts: one function per part of the header, each
// reading only the RunModel, so the arithmetic of titles, progress and rates
// is tested without a display.
#include "app/runs/run_monitor_texts.hpp"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QStringList>
#include <algorithm>
#include <climits>
#include <cmath>

#include "app/runs/pipeline_stages.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

namespace {

void set_title(const RunModel& m, RunMonitorTexts& t) {
  QString title = m.job_name().isEmpty() ? QFileInfo(m.run_dir()).fileName() : m.job_name();
  if (title.isEmpty()) title = QObject::tr("Starting…");  // a launch before its run_started event
  QStringList facts;
  if (!m.task().isEmpty()) facts << m.task();
  if (m.world_size() > 0) facts << QObject::tr("%n process(es)", nullptr, m.world_size());
  if (m.effective_batch() > 0) facts << QObject::tr("effective batch %1").arg(m.effective_batch());
  if (!m.device().isEmpty()) facts << m.device();
  t.title = facts.isEmpty() ? title : title + QStringLiteral(" — ") + facts.join(QStringLiteral(" · "));
  t.title_tooltip = QDir::toNativeSeparators(m.run_dir());
}

void set_status(const RunModel& m, RunMonitorTexts& t) {
  QString status = to_string(m.status());
  if (m.status() == RunStatus::finished && !m.finish_reason().isEmpty()) status += " (" + m.finish_reason() + ")";
  if (m.status() == RunStatus::unknown) status = QObject::tr("unknown (interrupted?)");
  if (m.written_by_newer_engine()) status += QObject::tr(" · written by a newer engine");
  t.status = status;
  t.status_colour = status_colour(m.status());
}

void set_progress(const RunModel& m, RunMonitorTexts& t) {
  const qint64 total = m.total_steps();
  const qint64 step = m.current_step();
  t.progress_maximum = total > 0 ? static_cast<int>(std::min<qint64>(total, INT_MAX)) : 1;
  t.progress_value = total > 0 ? static_cast<int>(std::min(step, total)) : 0;
  // A generate run's steps are its images.
  const QString unit = m.is_generation() ? QObject::tr("image") : QObject::tr("step");
  QString text =
      total > 0 ? QObject::tr("%1 %2 / %3").arg(unit).arg(step).arg(total) : QObject::tr("%1 %2").arg(unit).arg(step);
  if (const QVector<StageInfo> stages = m.stages(); !stages.isEmpty())
    text = QObject::tr("stage %1 (%2) · %3").arg(stages.back().name, stages.back().status, text);
  t.step = text;
  // A pipeline's stage sections replace the plain run's fixed charts (its
  // metrics are all "<stage>/…"); a generate run trains nothing: no loss,
  // PSNR or SSIM charts waiting for data.
  t.pipeline = is_pipeline(m);
  t.show_metric_charts = !t.pipeline && !m.is_generation();
}

void set_rates(const RunModel& m, RunMonitorTexts& t) {
  const double rate = m.throughput();
  t.throughput = rate > 0 ? QObject::tr("%1 %2").arg(QString::number(rate, 'g', 3), m.throughput_unit())
                          : QObject::tr("— samples/s");
  if (m.status() == RunStatus::running)
    t.eta = QObject::tr("ETA %1").arg(duration_text(m.eta_seconds()));
  else if (m.duration_seconds() > 0)
    t.eta = QObject::tr("took %1").arg(duration_text(m.duration_seconds()));
  t.restarts = QObject::tr("restarts: %1").arg(m.restarts());
  t.show_restarts = m.restarts() > 0;
}

void set_reader_problems(const RunModel& m, RunMonitorTexts& t) {
  const ReaderStats s = m.reader_stats();
  if (s.problems() == 0) return;
  QStringList parts;
  if (s.invalid_json) parts << QObject::tr("%1 not JSON").arg(s.invalid_json);
  if (s.unknown_types) parts << QObject::tr("%1 unknown type").arg(s.unknown_types);
  if (s.oversized) parts << QObject::tr("%1 oversized").arg(s.oversized);
  if (s.missing_fields) parts << QObject::tr("%1 missing fields").arg(s.missing_fields);
  if (s.newer_version) parts << QObject::tr("%1 newer version").arg(s.newer_version);
  if (s.invalid_utf8) parts << QObject::tr("%1 invalid UTF-8").arg(s.invalid_utf8);
  t.unusable_lines = QObject::tr("⚠ unusable lines: %1").arg(parts.join(QStringLiteral(", ")));
  t.unusable_lines_tooltip =
      QObject::tr("Lines of the event stream this console skipped or read only in part (of %1 lines).").arg(s.lines);
}

}  // namespace

QString duration_text(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return QStringLiteral("—");
  const qint64 s = static_cast<qint64>(std::llround(seconds));
  if (s < 60) return QObject::tr("%1 s").arg(s);
  if (s < 3600) return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60);
  return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString status_colour(RunStatus status) {
  switch (status) {
    case RunStatus::running:
      return QStringLiteral("#1f77b4");
    case RunStatus::finished:
      return QStringLiteral("#2ca02c");
    case RunStatus::failed:
      return QStringLiteral("#d62728");
    case RunStatus::stopped:
      return QStringLiteral("#e08a00");
    default:
      return QStringLiteral("#7f7f7f");
  }
}

RunMonitorTexts run_monitor_texts(const RunModel* model) {
  RunMonitorTexts t;
  if (!model) {
    t.title = QObject::tr("No run");
    return t;
  }
  const RunModel& m = *model;
  set_title(m, t);
  set_status(m, t);
  set_progress(m, t);
  set_rates(m, t);
  set_reader_problems(m, t);
  t.failure = m.failure_message();
  t.show_failure = !t.failure.isEmpty() && m.status() != RunStatus::finished;
  return t;
}

}  // namespace medsynth::app
