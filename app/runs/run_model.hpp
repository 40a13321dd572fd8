// One run's live state, as the console shows it: status, progress, metric
// series, per-rank logs, checkpoints and artifacts. Fed by EventStreamReader
// (events from a launcher's stdout or an EventFileTail) and by RankLogReader
// (logs/rank*.log); read by the ui's run monitor, charts and log tabs.
//
// Threading: a RunModel belongs to the thread that created it (the GUI thread
// for live runs; RunStore builds private ones on its worker thread). All
// methods must be called from that thread.
//
// Batching: feeders call begin_batch()/end_batch() around a chunk so that
// metric_appended/log_appended are emitted once per series per chunk, not per
// point (appending must sustain ~100 000 metric events/s). Outside a batch
// every append signals at once.
#pragma once

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>

namespace medsynth::app {

enum class RunStatus { pending, running, finished, failed, stopped, unknown };

// "pending", "running", ... (for labels, the run table and logs).
QString to_string(RunStatus status);

struct MetricPoint {
  qint64 step = 0;
  double value = 0.0;  // NaN, +inf or -inf when !finite (the event had null + "nonfinite")
  bool finite = true;
};

struct LogLine {
  QDateTime time;
  int rank = 0;      // -1: the launcher (agent)
  QString level;     // "debug", "info", "warn", "error" ("" for a continuation line)
  QString message;
};

// One stage of a pipeline run (task ldm): its latest status, and what its own
// progress is measured in (app/runs/pipeline_stages.hpp computes it).
struct StageInfo {
  QString name;    // "autoencoder", "encode", "diffusion", "generate", "evaluate"
  QString status;  // "started", "complete", "skipped (complete)", "resumed", ...
  QString dir;
  qint64 steps = -1;      // a training stage's own steps; -1: not a training stage (or an older engine)
  qint64 first_step = 0;  // where they start among the pipeline's steps (progress events count all stages)
  qint64 images = -1;     // generate: images planned; -1: unknown
  qint64 volumes = 0;     // volume artifacts that arrived while this stage ran
};

struct Artifact {
  QString path;  // absolute when the run directory is known
  QString kind;  // "volume", "reconstruction", ...
  qint64 step = 0;
};

struct CheckpointInfo {
  QString path;    // absolute when the run directory is known
  QString kind;    // "last", "best", "rollback"
  qint64 step = 0;
  QString metric;  // only for "best"
  double value = 0.0;
};

// How much of the stream could not be used (RELIABILITY 26). Lines are counted
// whether or not they were applied.
struct ReaderStats {
  qint64 lines = 0;           // complete lines seen (and a trailing partial one at finish())
  qint64 invalid_json = 0;    // not a JSON object (including a truncated last line)
  qint64 unknown_types = 0;   // a "type" this console does not know (ignored)
  qint64 oversized = 0;       // longer than the reader's max_line_bytes (skipped unread)
  qint64 missing_fields = 0;  // a required field absent or of the wrong type
  qint64 newer_version = 0;   // "v" larger than this console knows (read what it can)
  qint64 invalid_utf8 = 0;    // bytes that are not UTF-8 (replaced by U+FFFD, then read)

  qint64 problems() const { return invalid_json + unknown_types + oversized + missing_fields + newer_version + invalid_utf8; }
  bool operator==(const ReaderStats&) const = default;
};

// What a run_started event says (also after a restart).
struct RunStartInfo {
  QString run_dir;
  QString job_name;
  QString task;
  QString config_hash;
  int world_size = 0;
  int effective_batch = 0;
  qint64 total_steps = 0;
  QString device;
  QDateTime time;
  QStringList stages;  // a pipeline's stages in order (extra.stages); empty for a plain run
  QString verb;        // extra.verb: "generate" for a generate run (its steps are images); empty for training
};

// What one run may hold in the console's memory, whatever its stream says: a
// run of a million logged steps, a rank that logs without end, or a hostile
// stream of endless metric names must not grow the console without bound.
struct RunModelLimits {
  int max_points_per_series = 200000;  // then every other older point goes (charts show ~1 per pixel)
  int max_log_lines_per_rank = 100000; // then the oldest quarter goes
  int max_log_message_chars = 16384;   // longer messages are cut, saying how much
  int max_metric_names = 2000;         // later new names are dropped (counted)
  int max_log_ranks = 4096;            // later new ranks are dropped (counted)
  int max_listed_files = 10000;        // checkpoints and artifacts each: the oldest go
};

class RunModel : public QObject {
  Q_OBJECT

 public:
  // The value types are namespace-level; these aliases let callers spell either.
  using Status = RunStatus;
  using MetricPoint = app::MetricPoint;
  using LogLine = app::LogLine;
  using Artifact = app::Artifact;
  using CheckpointInfo = app::CheckpointInfo;
  using ReaderStats = app::ReaderStats;

  // keep_history = false keeps only the last point of each series (RunStore's
  // summaries: final metrics without the memory of a whole run).
  explicit RunModel(QObject* parent = nullptr, bool keep_history = true);
  // Before feeding; the defaults suit the console.
  void set_limits(const RunModelLimits& limits) { limits_ = limits; }
  const RunModelLimits& limits() const { return limits_; }
  // Metric points and log lines dropped by the limits (thinned series, trimmed
  // logs, names and ranks beyond the caps); cut messages are not counted.
  qint64 dropped_by_limits() const { return dropped_; }

  RunStatus status() const { return status_; }
  QString run_dir() const { return start_.run_dir; }
  QString job_name() const { return start_.job_name; }
  QString task() const { return start_.task; }
  // A generate run (`generate RUN --json`, "Generate from this label"): its
  // steps count images and it writes no training metrics.
  bool is_generation() const { return start_.verb == QLatin1String("generate"); }
  QString config_hash() const { return start_.config_hash; }
  QString device() const { return start_.device; }
  int world_size() const { return start_.world_size; }
  int effective_batch() const { return start_.effective_batch; }
  qint64 total_steps() const { return total_steps_; }
  qint64 current_step() const { return current_step_; }
  int epoch() const { return epoch_; }
  int epochs() const { return epochs_; }
  // Samples/s from the latest progress event; when none carried it, the last
  // throughput/* metric (then throughput_unit() names that metric). 0 if unknown.
  double throughput() const;
  QString throughput_unit() const;
  // Seconds left from the latest progress event; -1 while unknown.
  double eta_seconds() const { return eta_seconds_; }
  QDateTime started_at() const { return started_at_; }
  QDateTime finished_at() const { return finished_at_; }
  QDateTime last_event_at() const { return last_event_at_; }
  double duration_seconds() const { return duration_s_; }

  // Metric names in order of first appearance.
  QStringList metric_names() const { return metric_names_; }
  // The points of one metric; an empty series for an unknown name. A long
  // series is thinned (RunModelLimits): its first and last points and every
  // non-finite point stay.
  const QVector<MetricPoint>& series(const QString& name) const;
  // Last value per metric (run_finished's metrics override the series' last points).
  QMap<QString, double> final_metrics() const;

  QList<int> log_ranks() const;
  const QVector<LogLine>& logs(int rank) const;

  QVector<Artifact> artifacts() const { return artifacts_; }
  QVector<CheckpointInfo> checkpoints() const { return checkpoints_; }
  // Pipeline stages seen so far, in order; the last one is the current stage.
  QVector<StageInfo> stages() const { return stages_; }
  // The stages the pipeline announced in run_started (also those not begun yet).
  QStringList planned_stages() const { return start_.stages; }
  int restarts() const { return restarts_; }
  // The run_failed message, or what the launcher found (crash, vanished process).
  QString failure_message() const { return failure_message_; }
  // "completed" or "stopped" from run_finished; "" otherwise.
  QString finish_reason() const { return finish_reason_; }
  ReaderStats reader_stats() const { return stats_; }
  // A "v" newer than this console was seen: the ui says "written by a newer engine".
  bool written_by_newer_engine() const { return stats_.newer_version > 0; }
  bool is_terminal() const;

  // ---- Feeding (EventStreamReader, RankLogReader, launchers, tails) ----
  void begin_batch();
  void end_batch();  // emits the batched signals

  void apply_run_started(const RunStartInfo& info);
  void apply_progress(qint64 step, qint64 total_steps, int epoch, int epochs, double samples_per_s, double eta_s);
  void append_metric(const QString& name, qint64 step, double value, bool finite);
  // from_event: a `log` event (warn/error only); dropped for a rank whose log file is followed.
  void append_log(const LogLine& line, bool from_event = false);
  // Once logs/rank{R}.log is read, its lines are the rank's log (the file holds
  // every level; the events only repeat its warnings and errors).
  void mark_log_file_followed(int rank);
  void apply_checkpoint(const CheckpointInfo& checkpoint);
  void apply_artifact(const Artifact& artifact);
  // A `stage` event: updates that stage (or appends it, in order of first
  // appearance); its volume count is kept.
  void apply_stage(const StageInfo& stage);
  void apply_restart(int attempt, const QString& reason);
  void apply_run_finished(const QString& reason, const QMap<QString, double>& metrics, double duration_s, const QDateTime& time);
  void apply_run_failed(const QString& error_kind, const QString& message, int exit_code, int rank, const QDateTime& time);
  void note_event_time(const QDateTime& time);
  void set_reader_stats(const ReaderStats& stats);
  // Status decided outside the stream (launcher saw the process end, run store saw it go stale).
  void set_status(RunStatus status, const QString& failure_message = {});
  // Where the run's folder is (the folder opened, or the one a launcher
  // reported). Set before the stream's run_started, it wins over the folder
  // that event records: a run copied or moved elsewhere (rsync from cluster
  // scratch to a laptop) keeps its own location, and every path the stream
  // names inside the recorded folder is re-rooted into this one.
  void set_run_dir(const QString& run_dir);
  // The folder the stream's run_started recorded ("" before it, or when it
  // is where the run is).
  QString recorded_run_dir() const { return recorded_run_dir_; }
  // Forget everything (a followed file was replaced, a launcher starts again).
  void clear();

 signals:
  void metric_appended(const QString& name, int first_new_index);
  void log_appended(int rank, int first_new_index);
  void status_changed(medsynth::app::RunStatus status);
  void progress_changed();
  void artifact_added(const medsynth::app::Artifact& artifact);
  void checkpoint_added(const medsynth::app::CheckpointInfo& checkpoint);
  void stage_changed(const medsynth::app::StageInfo& stage);
  void restarted(int count);
  void stats_changed();
  void run_started();  // run_started applied: job name, task, world size ... known
  void cleared();

 private:
  QString absolute(const QString& path) const;
  void set_status_internal(RunStatus status);
  void flush_pending();

  void thin_series(const QString& name, QVector<MetricPoint>& points);
  void trim_logs(int rank, QVector<LogLine>& lines);

  bool keep_history_;
  RunModelLimits limits_;
  qint64 dropped_ = 0;
  RunStatus status_ = RunStatus::pending;
  RunStartInfo start_;
  bool located_ = false;      // set_run_dir() came first: start_.run_dir is where the files are
  QString recorded_run_dir_;  // run_started's run_dir when it differs from the location
  qint64 total_steps_ = 0;
  qint64 current_step_ = 0;
  int epoch_ = 0;
  int epochs_ = 0;
  double samples_per_s_ = -1.0;
  double eta_seconds_ = -1.0;
  QString throughput_metric_;
  QDateTime started_at_;
  QDateTime finished_at_;
  QDateTime last_event_at_;
  double duration_s_ = 0.0;

  QStringList metric_names_;
  QHash<QString, QVector<MetricPoint>> series_;
  QMap<QString, double> finished_metrics_;
  QMap<int, QVector<LogLine>> logs_;
  QSet<int> ranks_with_files_;
  QVector<Artifact> artifacts_;
  QVector<CheckpointInfo> checkpoints_;
  QVector<StageInfo> stages_;
  int restarts_ = 0;
  QString failure_message_;
  QString finish_reason_;
  ReaderStats stats_;

  // Batching state: first new index per series/rank since begin_batch().
  int batch_depth_ = 0;
  QHash<QString, int> pending_metrics_;
  QStringList pending_metric_order_;
  QMap<int, int> pending_logs_;
  bool pending_progress_ = false;
  bool pending_status_ = false;
  bool pending_stats_ = false;
};

}  // namespace medsynth::app

Q_DECLARE_METATYPE(medsynth::app::RunStatus)
Q_DECLARE_METATYPE(medsynth::app::Artifact)
Q_DECLARE_METATYPE(medsynth::app::CheckpointInfo)
Q_DECLARE_METATYPE(medsynth::app::StageInfo)
