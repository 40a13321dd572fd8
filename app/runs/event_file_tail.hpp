// Follows a run directory as it grows: events.jsonl (into an EventStreamReader)
// and logs/rank*.log (into RankLogReaders; the event stream only repeats
// warnings and errors, the rank logs hold every line). Used for `medsynth
// --open-run DIR`, for runs started elsewhere, and by LocalLauncher for the
// rank logs of the run it started.
//
// Threading: the files are polled and read on a worker thread (FilePoller);
// chunks reach this object on its own (GUI) thread by queued signals and are
// applied to the model there. Handles a file that does not exist yet, grows,
// is truncated or replaced (the model is cleared and the file read again).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <map>
#include <memory>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/rank_log_reader.hpp"
#include "app/runs/run_model.hpp"

namespace medsynth::app {

class FilePoller;

struct EventFileTailOptions {
  bool follow_events = true;     // events.jsonl
  bool follow_rank_logs = true;  // logs/rank*.log (new ranks are picked up as they appear)
  int poll_interval_ms = 250;
  qsizetype max_chunk_bytes = 4 * 1024 * 1024;  // read at most this much per file per poll
  EventStreamReaderOptions reader;

  // Empty when valid; else one message per bad field ("poll_interval_ms: must be >= 10").
  QStringList validate() const;
};

class EventFileTail : public QObject {
  Q_OBJECT

 public:
  // model: where events and logs go (not owned; must outlive the tail or be
  // destroyed after stop()). May be null: then only the signals tell.
  explicit EventFileTail(RunModel* model, EventFileTailOptions options = {}, QObject* parent = nullptr);
  ~EventFileTail() override;

  // Starts following run_dir (stops a previous one). The directory may not exist yet.
  void start(const QString& run_dir);
  void stop();
  bool is_running() const { return thread_ != nullptr; }
  QString run_dir() const { return run_dir_; }
  RunModel* model() const { return model_; }

 signals:
  // Raw chunks as read (for callers without a model, and for tests).
  void events_read(const QByteArray& chunk);
  void log_read(int rank, const QByteArray& chunk);
  // A followed file shrank or was replaced; the model was cleared and is re-read.
  void file_replaced(const QString& path);
  // The worker finished one poll of every file (tests wait on it; ui may show "live").
  void polled();

 private slots:
  void on_chunk(int generation, const QString& key, const QByteArray& chunk);
  void on_reset(int generation, const QString& key);
  void on_polled(int generation);

 private:
  RunModel* model_;
  EventFileTailOptions options_;
  QString run_dir_;
  int generation_ = 0;  // of the current poller; chunks of older ones are dropped
  QThread* thread_ = nullptr;
  FilePoller* poller_ = nullptr;  // lives on thread_
  std::unique_ptr<EventStreamReader> events_;
  std::map<int, std::unique_ptr<RankLogReader>> logs_;
};

}  // namespace medsynth::app
