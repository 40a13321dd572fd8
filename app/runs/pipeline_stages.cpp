// Stage progress: a training stage counts the pipeline's progress steps from
// its first step (clamped to its own), generate counts the volumes that
// arrived while it ran, the others are done or not.
#include "app/runs/pipeline_stages.hpp"

#include <algorithm>

namespace medsynth::app {

namespace {

const StageInfo* find_stage(const QVector<StageInfo>& stages, const QString& name) {
  for (const StageInfo& s : stages)
    if (s.name == name) return &s;
  return nullptr;
}

StageProgress progress_of(const RunModel& model, const StageInfo& s, bool current) {
  StageProgress p{s.name, s.status, 0, 0, QString(), is_finished_stage_status(s.status), current};
  if (s.steps >= 0) {
    p.total = s.steps;
    p.unit = QStringLiteral("steps");
    p.done = p.finished ? s.steps : std::clamp<qint64>(model.current_step() - s.first_step, 0, s.steps);
  } else if (s.images >= 0) {
    p.total = s.images;
    p.unit = QStringLiteral("images");
    p.done = p.finished ? s.images : std::min(s.volumes, s.images);
  }
  return p;
}

}  // namespace

bool is_finished_stage_status(const QString& status) {
  return status.startsWith(QLatin1String("complete")) || status.startsWith(QLatin1String("skipped")) ||
         status == QLatin1String("given");
}

bool is_pipeline(const RunModel& model) { return !model.planned_stages().isEmpty() || !model.stages().isEmpty(); }

QStringList pipeline_stage_names(const RunModel& model) {
  QStringList names = model.planned_stages();
  for (const StageInfo& s : model.stages())
    if (!names.contains(s.name)) names << s.name;
  return names;
}

QVector<StageProgress> pipeline_progress(const RunModel& model) {
  const QVector<StageInfo> stages = model.stages();
  const QString current = stages.isEmpty() || model.is_terminal() ? QString() : stages.back().name;
  QVector<StageProgress> out;
  for (const QString& name : pipeline_stage_names(model)) {
    if (const StageInfo* s = find_stage(stages, name))
      out << progress_of(model, *s, name == current);
    else
      out << StageProgress{name, QStringLiteral("pending"), 0, 0, QString(), false, false};
  }
  return out;
}

std::optional<StageMetric> split_stage_metric(const QString& metric, const QStringList& stages) {
  const qsizetype slash = metric.indexOf(QLatin1Char('/'));
  if (slash <= 0 || slash == metric.size() - 1) return std::nullopt;
  const QString stage = metric.left(slash);
  if (!stages.contains(stage)) return std::nullopt;
  return StageMetric{stage, metric.mid(slash + 1)};
}

}  // namespace medsynth::app
