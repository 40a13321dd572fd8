// RunStore: finding run directories, summarizing each from its event stream,
// and the asynchronous refresh.
#include "app/runs/run_store.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHash>
#include <QSet>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "app/runs/event_stream_reader.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {

namespace {

bool is_run_dir(const QDir& dir) {
  return dir.exists(QLatin1String(k_events_file)) || dir.exists(QLatin1String(k_job_file));
}

void collect(const QString& path, int depth, int max_depth, QStringList& out) {
  const QDir dir(path);
  if (is_run_dir(dir)) {
    out << dir.absolutePath();
    return;  // a run directory's subfolders (checkpoints/, output/) are not runs
  }
  if (depth >= max_depth) return;
  for (const auto& sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Readable, QDir::Name))
    collect(dir.filePath(sub), depth + 1, max_depth, out);
}

// Tags the runs a sweep made: each folder's sweep-*.json lists its runs'
// directories (relative to it) and swept values (engine/cli/verb_sweep.cpp).
void mark_sweeps(QVector<RunSummary>& runs) {
  QHash<QString, QString> sweep_of;  // absolute run dir -> "SWEEP: values"
  QSet<QString> folders;
  for (const auto& r : runs) folders.insert(QFileInfo(r.run_dir).absolutePath());
  for (const QString& folder : std::as_const(folders)) {
    const QDir dir(folder);
    for (const auto& file : dir.entryList({QStringLiteral("sweep-*.json")}, QDir::Files, QDir::Name)) {
      QFile f(dir.filePath(file));
      if (!f.open(QIODevice::ReadOnly) || f.size() > 4 * 1024 * 1024) continue;  // a summary is a few KB
      const QJsonObject summary = QJsonDocument::fromJson(f.readAll()).object();
      const QString name = QFileInfo(file).completeBaseName().mid(6);  // without "sweep-"
      for (const QJsonValue& run : summary.value(QStringLiteral("runs")).toArray()) {
        const QString rel = run.toObject().value(QStringLiteral("run_dir")).toString();
        if (rel.isEmpty()) continue;
        QStringList values;
        const QJsonObject v = run.toObject().value(QStringLiteral("values")).toObject();
        for (auto it = v.begin(); it != v.end(); ++it) values << it.key() + QLatin1Char('=') + it.value().toString();
        sweep_of.insert(QDir::cleanPath(dir.absoluteFilePath(rel)),
                        name + QStringLiteral(": ") + values.join(QLatin1Char(' ')));
      }
    }
  }
  for (auto& r : runs) r.sweep = sweep_of.value(QDir::cleanPath(r.run_dir));
}

// The job's name from job.yaml without a full parse (the resolved job writes `name: "x"` first).
QString job_name_from_yaml(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  static const QRegularExpression name(QStringLiteral(R"re(^name:\s*"?([^"#\r\n]*?)"?\s*(#.*)?$)re"));
  for (int i = 0; i < 200 && !file.atEnd(); ++i) {
    const QString line = QString::fromUtf8(file.readLine(4096)).trimmed();
    const auto m = name.match(line);
    if (m.hasMatch()) return m.captured(1).trimmed();
  }
  return {};
}

QDateTime newest_mtime(const QString& run_dir) {
  QDateTime newest;
  auto consider = [&](const QFileInfo& info) {
    if (info.exists() && (!newest.isValid() || info.lastModified() > newest)) newest = info.lastModified();
  };
  consider(QFileInfo(run_dir + QStringLiteral("/events.jsonl")));
  consider(QFileInfo(run_dir + QStringLiteral("/job.yaml")));
  const QDir logs(run_dir + QStringLiteral("/logs"));
  for (const auto& info : logs.entryInfoList({QStringLiteral("*.log")}, QDir::Files)) consider(info);
  return newest.isValid() ? newest.toUTC() : newest;
}

}  // namespace

QStringList RunStoreOptions::validate() const {
  QStringList errors;
  if (!(stale_after_s > 0)) errors << QStringLiteral("stale_after_s: must be > 0 (got %1)").arg(stale_after_s);
  if (max_depth < 0) errors << QStringLiteral("max_depth: must be >= 0 (got %1)").arg(max_depth);
  return errors;
}

RunStore::RunStore(QObject* parent, RunStoreOptions options)
    : QObject(parent), options_(options), watcher_(new QFutureWatcher<QVector<RunSummary>>(this)) {
  if (!options_.validate().isEmpty()) options_ = {};
  connect(watcher_, &QFutureWatcher<QVector<RunSummary>>::finished, this, &RunStore::on_scan_done);
}

RunStore::~RunStore() { watcher_->waitForFinished(); }

void RunStore::set_roots(const QStringList& roots) { roots_ = roots; }

bool RunStore::is_refreshing() const { return watcher_->isRunning(); }

void RunStore::refresh() {
  if (watcher_->isRunning()) {
    again_ = true;
    return;
  }
  const QStringList roots = roots_;
  const RunStoreOptions options = options_;
  watcher_->setFuture(QtConcurrent::run([roots, options] {
    QVector<RunSummary> out;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const auto& dir : find_run_dirs(roots, options.max_depth)) out.append(summarize(dir, options, now));
    mark_sweeps(out);
    std::sort(out.begin(), out.end(), [](const RunSummary& a, const RunSummary& b) {
      if (a.started != b.started) return a.started > b.started;
      return a.name > b.name;
    });
    return out;
  }));
}

void RunStore::on_scan_done() {
  runs_ = watcher_->result();
  for (auto& run : runs_)
    if (active_.contains(run.run_dir) && (run.status == RunStatus::unknown || run.status == RunStatus::pending))
      run.status = RunStatus::running;
  emit refreshed();
  if (std::exchange(again_, false)) refresh();
}

std::optional<RunSummary> RunStore::find(const QString& run_dir) const {
  const QString wanted = QDir(run_dir).absolutePath();
  for (const auto& run : runs_)
    if (run.run_dir == wanted) return run;
  return std::nullopt;
}

void RunStore::set_active(const QString& run_dir, bool active) {
  const QString dir = QDir(run_dir).absolutePath();
  if (active)
    active_.insert(dir);
  else
    active_.remove(dir);
}

QStringList RunStore::find_run_dirs(const QStringList& roots, int max_depth) {
  QStringList out;
  for (const auto& root : roots)
    if (QFileInfo(root).isDir()) collect(root, 0, max_depth, out);
  out.removeDuplicates();
  return out;
}

RunSummary RunStore::summarize(const QString& run_dir, const RunStoreOptions& options, const QDateTime& now) {
  RunSummary s;
  const QDir dir(run_dir);
  s.run_dir = dir.absolutePath();
  s.name = dir.dirName();

  RunModel model(nullptr, /*keep_history=*/false);
  EventStreamReader reader(&model);
  QFile events(dir.filePath(QLatin1String(k_events_file)));
  const bool has_events = events.open(QIODevice::ReadOnly);
  if (has_events) {
    while (!events.atEnd()) {
      const QByteArray chunk = events.read(1 << 20);
      if (chunk.isEmpty()) break;
      reader.feed(chunk);
    }
    reader.finish();
  }

  s.job_name = model.job_name();
  if (s.job_name.isEmpty()) s.job_name = job_name_from_yaml(dir.filePath(QLatin1String(k_job_file)));
  s.task = model.task();
  s.config_hash = model.config_hash();
  s.world_size = model.world_size();
  s.steps = model.current_step();
  s.total_steps = model.total_steps();
  s.final_metrics = model.final_metrics();
  s.finish_reason = model.finish_reason();
  s.failure_message = model.failure_message();
  s.restarts = model.restarts();
  s.newer_version = model.written_by_newer_engine();
  s.unreadable_lines = model.reader_stats().problems();
  s.last_modified = newest_mtime(s.run_dir);
  s.started = model.started_at();
  if (!s.started.isValid()) s.started = QFileInfo(dir.filePath(QLatin1String(k_job_file))).birthTime().toUTC();
  if (!s.started.isValid()) s.started = s.last_modified;
  s.ended = model.finished_at().isValid() ? model.finished_at() : model.last_event_at();

  s.status = model.status();
  if (!model.is_terminal()) {
    // No end event: still going only while its files change (the engine keeps no pid file).
    const bool stale = !s.last_modified.isValid() || s.last_modified.secsTo(now) > options.stale_after_s;
    if (stale) {
      s.status = RunStatus::unknown;
      s.failure_message = has_events ? QStringLiteral("interrupted: the event stream ends without run_finished or run_failed "
                                                      "(no change since %1)")
                                           .arg(s.last_modified.toString(Qt::ISODate))
                                     : QStringLiteral("interrupted: no events.jsonl");
      if (!s.ended.isValid()) s.ended = s.last_modified;
    } else {
      s.status = model.reader_stats().lines == 0 ? RunStatus::pending : RunStatus::running;
    }
  }
  return s;
}

}  // namespace medsynth::app
