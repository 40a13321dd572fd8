// The run history: every run directory under one or more roots (a runs/
// folder holds <name>-<YYYYmmdd-HHMMSS>/ directories with job.yaml and
// events.jsonl), summarized from their event streams. Used by the ui's run
// history table and by `medsynth --open-run`.
//
// Threading: refresh() scans on a worker thread (QtConcurrent) and emits
// refreshed() on the store's thread; summarize() is synchronous (the scan and
// the tests call it).
//
// Interrupted runs: the engine writes no lock or pid file into a run
// directory (engine/run/run_directory.cpp), so a run whose events end without
// run_finished/run_failed is "running" only while its files still change:
// when neither events.jsonl nor logs/rank*.log was modified for
// stale_after_s, it is shown as unknown (interrupted). Runs this console is
// running itself are marked with set_active() and always show as running.
#pragma once

#include <QDateTime>
#include <QFutureWatcher>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "app/runs/run_model.hpp"

namespace medsynth::app {

struct RunSummary {
  QString run_dir;   // absolute
  QString name;      // the directory's name, e.g. quickstart-20261122-084537
  QString job_name;
  QString task;
  RunStatus status = RunStatus::unknown;
  QDateTime started;
  QDateTime ended;   // run_finished/run_failed time; else the last event's
  qint64 steps = 0;
  qint64 total_steps = 0;
  int world_size = 0;
  QMap<QString, double> final_metrics;
  QString config_hash;
  // Also known:
  QString finish_reason;    // "completed" / "stopped"
  QString failure_message;  // run_failed's message, or why the status is unknown
  int restarts = 0;
  bool newer_version = false;  // written by a newer engine
  qint64 unreadable_lines = 0; // ReaderStats::problems()
  QDateTime last_modified;     // newest of events.jsonl and logs/*.log
  // The sweep that made it (medsynth-engine sweep: a sweep-*.json beside it
  // names it), as "SWEEP: key=value ...", so that a sweep's runs sort together.
  QString sweep;
};

struct RunStoreOptions {
  // A run without a terminal event whose files are older than this is interrupted.
  double stale_after_s = 30 * 60;
  // Run directories are looked for at most this many levels below a root:
  // 1 = the root is a runs/ folder, 2 = a folder holding runs/ folders.
  int max_depth = 2;

  QStringList validate() const;
};

class RunStore : public QObject {
  Q_OBJECT

 public:
  explicit RunStore(QObject* parent = nullptr, RunStoreOptions options = {});
  ~RunStore() override;

  void set_roots(const QStringList& roots);
  QStringList roots() const { return roots_; }
  // Asynchronous: scans on a worker thread, then emits refreshed(). A refresh
  // asked for while one runs is done after it.
  void refresh();
  bool is_refreshing() const;

  // Newest first (by start time, then name).
  QVector<RunSummary> runs() const { return runs_; }
  std::optional<RunSummary> find(const QString& run_dir) const;

  // Runs this console started and is running now (never shown as interrupted).
  void set_active(const QString& run_dir, bool active);

  // Reads one run directory. now: the time staleness is judged against.
  static RunSummary summarize(const QString& run_dir, const RunStoreOptions& options = {},
                              const QDateTime& now = QDateTime::currentDateTimeUtc());
  // Run directories (holding events.jsonl or job.yaml) under the roots.
  static QStringList find_run_dirs(const QStringList& roots, int max_depth = 2);

 signals:
  void refreshed();

 private:
  void on_scan_done();

  RunStoreOptions options_;
  QStringList roots_;
  QVector<RunSummary> runs_;
  QSet<QString> active_;
  QFutureWatcher<QVector<RunSummary>>* watcher_;
  bool again_ = false;
};

}  // namespace medsynth::app
