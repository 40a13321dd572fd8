// RunModel: state changes and the batching of its signals.
#include "app/runs/run_model.hpp"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <limits>

namespace medsynth::app {

namespace {
const QVector<MetricPoint> k_empty_series;
const QVector<LogLine> k_empty_logs;
}  // namespace

QString to_string(RunStatus status) {
  switch (status) {
    case RunStatus::pending: return QStringLiteral("pending");
    case RunStatus::running: return QStringLiteral("running");
    case RunStatus::finished: return QStringLiteral("finished");
    case RunStatus::failed: return QStringLiteral("failed");
    case RunStatus::stopped: return QStringLiteral("stopped");
    case RunStatus::unknown: return QStringLiteral("unknown");
  }
  return QStringLiteral("unknown");
}

RunModel::RunModel(QObject* parent, bool keep_history) : QObject(parent), keep_history_(keep_history) {
  static const int registered = [] {
    qRegisterMetaType<RunStatus>("medsynth::app::RunStatus");
    qRegisterMetaType<StageInfo>("medsynth::app::StageInfo");
    qRegisterMetaType<Artifact>("medsynth::app::Artifact");
    qRegisterMetaType<CheckpointInfo>("medsynth::app::CheckpointInfo");
    return 0;
  }();
  Q_UNUSED(registered);
}

double RunModel::throughput() const {
  if (samples_per_s_ >= 0) return samples_per_s_;
  if (!throughput_metric_.isEmpty()) {
    const auto& s = series(throughput_metric_);
    if (!s.isEmpty() && s.back().finite) return s.back().value;
  }
  return 0.0;
}

QString RunModel::throughput_unit() const {
  if (samples_per_s_ >= 0 || throughput_metric_.isEmpty()) return QStringLiteral("samples/s");
  // "throughput/vox_per_s" -> "vox/s"
  QString unit = throughput_metric_.mid(throughput_metric_.indexOf('/') + 1);
  unit.replace(QStringLiteral("_per_"), QStringLiteral("/"));
  return unit;
}

const QVector<MetricPoint>& RunModel::series(const QString& name) const {
  auto it = series_.constFind(name);
  return it == series_.constEnd() ? k_empty_series : *it;
}

QMap<QString, double> RunModel::final_metrics() const {
  QMap<QString, double> out;
  for (const auto& name : metric_names_) {
    const auto& s = series_.value(name);
    if (!s.isEmpty()) out.insert(name, s.back().value);
  }
  for (auto it = finished_metrics_.cbegin(); it != finished_metrics_.cend(); ++it) out.insert(it.key(), it.value());
  return out;
}

QList<int> RunModel::log_ranks() const { return logs_.keys(); }

const QVector<LogLine>& RunModel::logs(int rank) const {
  auto it = logs_.constFind(rank);
  return it == logs_.constEnd() ? k_empty_logs : *it;
}

bool RunModel::is_terminal() const {
  return status_ == RunStatus::finished || status_ == RunStatus::failed || status_ == RunStatus::stopped;
}

void RunModel::begin_batch() { ++batch_depth_; }

void RunModel::end_batch() {
  if (batch_depth_ > 0 && --batch_depth_ == 0) flush_pending();
}

void RunModel::flush_pending() {
  // Copy first: a slot may append again (and must then signal on its own).
  const QStringList order = std::exchange(pending_metric_order_, {});
  const QHash<QString, int> metrics = std::exchange(pending_metrics_, {});
  const QMap<int, int> logs = std::exchange(pending_logs_, {});
  const bool progress = std::exchange(pending_progress_, false);
  const bool status = std::exchange(pending_status_, false);
  const bool stats = std::exchange(pending_stats_, false);
  for (const auto& name : order) emit metric_appended(name, metrics.value(name));
  for (auto it = logs.cbegin(); it != logs.cend(); ++it) emit log_appended(it.key(), it.value());
  if (progress) emit progress_changed();
  if (stats) emit stats_changed();
  if (status) emit status_changed(status_);
}

void RunModel::set_status_internal(RunStatus status) {
  if (status == status_) return;
  status_ = status;
  if (batch_depth_ > 0)
    pending_status_ = true;
  else
    emit status_changed(status_);
}

void RunModel::note_event_time(const QDateTime& time) {
  if (time.isValid() && (!last_event_at_.isValid() || time > last_event_at_)) last_event_at_ = time;
}

namespace {

// Two spellings of one folder (relative, with "..", through a link)?
bool same_folder(const QString& a, const QString& b) {
  if (QDir::cleanPath(QFileInfo(a).absoluteFilePath()) == QDir::cleanPath(QFileInfo(b).absoluteFilePath())) return true;
  const QString ca = QFileInfo(a).canonicalFilePath();
  return !ca.isEmpty() && ca == QFileInfo(b).canonicalFilePath();
}

}  // namespace

void RunModel::apply_run_started(const RunStartInfo& info) {
  const QString dir = start_.run_dir;
  start_ = info;
  if (located_ && !dir.isEmpty()) {
    const QString recorded = QDir::cleanPath(info.run_dir);
    recorded_run_dir_ = same_folder(recorded, dir) ? QString() : recorded;
    start_.run_dir = dir;
  }
  if (start_.run_dir.isEmpty()) start_.run_dir = dir;
  total_steps_ = info.total_steps;
  if (!started_at_.isValid()) started_at_ = info.time;
  note_event_time(info.time);
  // A run_started after a restart continues the same run.
  failure_message_.clear();
  finish_reason_.clear();
  finished_at_ = {};
  set_status_internal(RunStatus::running);
  emit run_started();
  if (batch_depth_ > 0)
    pending_progress_ = true;
  else
    emit progress_changed();
}

void RunModel::apply_progress(qint64 step, qint64 total_steps, int epoch, int epochs, double samples_per_s, double eta_s) {
  current_step_ = step;
  if (total_steps > 0) total_steps_ = total_steps;
  epoch_ = epoch;
  epochs_ = epochs;
  if (samples_per_s >= 0) samples_per_s_ = samples_per_s;
  eta_seconds_ = eta_s;
  if (status_ == RunStatus::pending || status_ == RunStatus::unknown) set_status_internal(RunStatus::running);
  if (batch_depth_ > 0)
    pending_progress_ = true;
  else
    emit progress_changed();
}

void RunModel::thin_series(const QString& name, QVector<MetricPoint>& points) {
  // Keep every other point, and always the first, the last and the non-finite
  // ones (a NaN step is what the user looks for). Halving makes it amortised O(1).
  const qsizetype before = points.size();
  qsizetype kept = 0;
  for (qsizetype i = 0; i < before; ++i)
    if (i % 2 == 0 || i == before - 1 || !points[i].finite) points[kept++] = points[i];
  points.resize(kept);
  dropped_ += before - kept;
  // A pending "first new index" may now point past moved points: the new ones start at the end.
  if (auto p = pending_metrics_.find(name); p != pending_metrics_.end()) *p = std::min<int>(*p, static_cast<int>(kept));
}

void RunModel::trim_logs(int rank, QVector<LogLine>& lines) {
  const qsizetype drop = std::max<qsizetype>(1, lines.size() / 4);
  lines.remove(0, drop);
  dropped_ += drop;
  // Index 0: views that keep an index see that the lines moved and rebuild.
  if (batch_depth_ > 0) pending_logs_[rank] = 0;
}

void RunModel::append_metric(const QString& name, qint64 step, double value, bool finite) {
  auto it = series_.find(name);
  if (it == series_.end()) {
    if (metric_names_.size() >= limits_.max_metric_names) {
      ++dropped_;
      return;
    }
    it = series_.insert(name, {});
    metric_names_.append(name);
    if (name.startsWith(QStringLiteral("throughput/"))) throughput_metric_ = name;
  }
  if (!keep_history_ && !it->isEmpty()) it->clear();
  if (it->size() >= std::max(2, limits_.max_points_per_series)) thin_series(name, *it);
  const int index = static_cast<int>(it->size());
  it->append({step, finite || !std::isfinite(value) ? value : std::numeric_limits<double>::quiet_NaN(), finite});
  if (step > current_step_) current_step_ = step;
  if (status_ == RunStatus::pending) set_status_internal(RunStatus::running);
  if (batch_depth_ > 0) {
    if (!pending_metrics_.contains(name)) {
      pending_metrics_.insert(name, index);
      pending_metric_order_.append(name);
    }
  } else {
    emit metric_appended(name, index);
  }
}

void RunModel::append_log(const LogLine& line, bool from_event) {
  if (from_event && ranks_with_files_.contains(line.rank)) return;
  if (!logs_.contains(line.rank) && logs_.size() >= limits_.max_log_ranks) {
    ++dropped_;
    return;
  }
  auto& lines = logs_[line.rank];
  bool trimmed = false;
  if (lines.size() >= std::max(1, limits_.max_log_lines_per_rank)) {
    trim_logs(line.rank, lines);
    trimmed = true;
  }
  const int index = static_cast<int>(lines.size());
  lines.append(line);
  if (line.message.size() > limits_.max_log_message_chars) {
    QString& message = lines.back().message;
    const qsizetype cut = message.size() - limits_.max_log_message_chars;
    message.truncate(limits_.max_log_message_chars);
    message += QStringLiteral(" … [%1 characters cut]").arg(cut);
    message.squeeze();
  }
  if (batch_depth_ > 0) {
    if (!pending_logs_.contains(line.rank)) pending_logs_.insert(line.rank, index);
  } else {
    emit log_appended(line.rank, trimmed ? 0 : index);
  }
}

void RunModel::mark_log_file_followed(int rank) { ranks_with_files_.insert(rank); }

QString RunModel::absolute(const QString& path) const {
  if (path.isEmpty() || start_.run_dir.isEmpty()) return path;
  if (!QDir::isAbsolutePath(path)) return QDir(start_.run_dir).filePath(path);
  // A path inside the folder the run was recorded in, for a run that now
  // lives elsewhere: the same file under the run's location.
  if (!recorded_run_dir_.isEmpty() &&
      (path == recorded_run_dir_ || path.startsWith(recorded_run_dir_ + QLatin1Char('/'))))
    return start_.run_dir + path.mid(recorded_run_dir_.size());
  return path;
}

void RunModel::apply_checkpoint(const CheckpointInfo& checkpoint) {
  CheckpointInfo c = checkpoint;
  c.path = absolute(c.path);
  // One entry per file: last.safetensors is rewritten at every checkpoint step.
  if (auto it = std::find_if(checkpoints_.begin(), checkpoints_.end(),
                             [&](const CheckpointInfo& k) { return k.path == c.path; });
      it != checkpoints_.end()) {
    *it = c;
    emit checkpoint_added(c);
    return;
  }
  if (checkpoints_.size() >= limits_.max_listed_files) {  // the oldest "last" saves matter least
    checkpoints_.removeFirst();
    ++dropped_;
  }
  checkpoints_.append(c);
  emit checkpoint_added(c);
}

void RunModel::apply_stage(const StageInfo& info) {
  StageInfo stage = info;
  stage.dir = absolute(info.dir);
  auto it = std::find_if(stages_.begin(), stages_.end(), [&](const StageInfo& s) { return s.name == stage.name; });
  if (it != stages_.end()) {
    stage.volumes = it->volumes;
    *it = stage;
  } else if (stages_.size() < 64) {  // a pipeline has a handful; a hostile stream gets no more
    stages_.push_back(stage);
  }
  if (status_ == RunStatus::pending) set_status_internal(RunStatus::running);
  emit stage_changed(stage);
}

void RunModel::apply_artifact(const Artifact& artifact) {
  Artifact a = artifact;
  a.path = absolute(a.path);
  // Once per file: a later `generate RUN` announces images in the run's
  // stream, and a file made again keeps its place (issue 38: listed twice).
  for (Artifact& known : artifacts_)
    if (known.path == a.path) {
      known = a;
      return;
    }
  if (artifacts_.size() >= limits_.max_listed_files) {
    artifacts_.removeFirst();
    ++dropped_;
  }
  artifacts_.append(a);
  // The running stage made it: generate's progress counts its images.
  if (a.kind == QLatin1String("volume") && !stages_.isEmpty()) ++stages_.back().volumes;
  emit artifact_added(a);
}

void RunModel::apply_restart(int attempt, const QString& reason) {
  restarts_ = std::max(restarts_ + 1, attempt);
  failure_message_.clear();
  finish_reason_.clear();
  finished_at_ = {};
  set_status_internal(RunStatus::running);
  append_log({last_event_at_, -1, QStringLiteral("warn"), QStringLiteral("restart %1: %2").arg(restarts_).arg(reason)});
  emit restarted(restarts_);
}

void RunModel::apply_run_finished(const QString& reason, const QMap<QString, double>& metrics, double duration_s,
                                  const QDateTime& time) {
  finish_reason_ = reason;
  finished_metrics_ = metrics;
  duration_s_ = duration_s;
  finished_at_ = time;
  note_event_time(time);
  set_status_internal(reason == QLatin1String("stopped") ? RunStatus::stopped : RunStatus::finished);
}

void RunModel::apply_run_failed(const QString& error_kind, const QString& message, int exit_code, int rank,
                                const QDateTime& time) {
  failure_message_ = message.isEmpty() ? QStringLiteral("%1 error (exit code %2)").arg(error_kind).arg(exit_code) : message;
  finished_at_ = time;
  note_event_time(time);
  Q_UNUSED(rank);
  // An interrupted run saved its state: it stopped rather than failed.
  set_status_internal(error_kind == QLatin1String("interrupted") ? RunStatus::stopped : RunStatus::failed);
}

void RunModel::set_reader_stats(const ReaderStats& stats) {
  if (stats == stats_) return;
  stats_ = stats;
  if (batch_depth_ > 0)
    pending_stats_ = true;
  else
    emit stats_changed();
}

void RunModel::set_status(RunStatus status, const QString& failure_message) {
  if (!failure_message.isEmpty()) failure_message_ = failure_message;
  const bool terminal = status == RunStatus::finished || status == RunStatus::failed || status == RunStatus::stopped;
  if (terminal && !finished_at_.isValid()) finished_at_ = QDateTime::currentDateTimeUtc();
  set_status_internal(status);
}

void RunModel::set_run_dir(const QString& run_dir) {
  start_.run_dir = run_dir;
  located_ = !run_dir.isEmpty();
}

void RunModel::clear() {
  const bool keep = keep_history_;
  status_ = RunStatus::pending;
  start_ = {};
  located_ = false;
  recorded_run_dir_.clear();
  total_steps_ = current_step_ = 0;
  epoch_ = epochs_ = 0;
  samples_per_s_ = eta_seconds_ = -1.0;
  throughput_metric_.clear();
  started_at_ = finished_at_ = last_event_at_ = {};
  duration_s_ = 0.0;
  metric_names_.clear();
  series_.clear();
  finished_metrics_.clear();
  logs_.clear();
  ranks_with_files_.clear();
  artifacts_.clear();
  checkpoints_.clear();
  stages_.clear();
  restarts_ = 0;
  failure_message_.clear();
  finish_reason_.clear();
  stats_ = {};
  dropped_ = 0;
  pending_metrics_.clear();
  pending_metric_order_.clear();
  pending_logs_.clear();
  pending_progress_ = pending_status_ = pending_stats_ = false;
  keep_history_ = keep;
  emit cleared();
  emit status_changed(status_);
}

}  // namespace medsynth::app
