// EventFileTail: owns the worker thread and applies its chunks to the model.
#include "app/runs/event_file_tail.hpp"

#include "app/runs/file_poller.hpp"

namespace medsynth::app {

QStringList EventFileTailOptions::validate() const {
  QStringList errors;
  if (poll_interval_ms < 10) errors << QStringLiteral("poll_interval_ms: must be >= 10 (got %1)").arg(poll_interval_ms);
  if (max_chunk_bytes < 4096) errors << QStringLiteral("max_chunk_bytes: must be >= 4096 (got %1)").arg(max_chunk_bytes);
  if (reader.max_line_bytes < 1024)
    errors << QStringLiteral("reader.max_line_bytes: must be >= 1024 (got %1)").arg(reader.max_line_bytes);
  if (!follow_events && !follow_rank_logs) errors << QStringLiteral("follow_events, follow_rank_logs: nothing to follow");
  return errors;
}

EventFileTail::EventFileTail(RunModel* model, EventFileTailOptions options, QObject* parent)
    : QObject(parent), model_(model), options_(std::move(options)) {
  // Programmer error, not user input: fall back to the defaults rather than spin.
  if (!options_.validate().isEmpty()) {
    qWarning("EventFileTail: %s; using defaults", qPrintable(options_.validate().join(QStringLiteral("; "))));
    const bool events = options_.follow_events, logs = options_.follow_rank_logs;
    options_ = {};
    if (events || logs) {
      options_.follow_events = events;
      options_.follow_rank_logs = logs;
    }
  }
}

EventFileTail::~EventFileTail() { stop(); }

void EventFileTail::start(const QString& run_dir) {
  stop();
  run_dir_ = run_dir;
  events_ = std::make_unique<EventStreamReader>(model_, options_.reader);
  logs_.clear();
  if (model_ && model_->run_dir().isEmpty()) model_->set_run_dir(run_dir);

  thread_ = new QThread(this);
  thread_->setObjectName(QStringLiteral("EventFileTail"));
  poller_ = new FilePoller(++generation_, run_dir, options_.follow_events, options_.follow_rank_logs, options_.poll_interval_ms,
                           options_.max_chunk_bytes);
  poller_->moveToThread(thread_);
  connect(thread_, &QThread::started, poller_, &FilePoller::start);
  connect(thread_, &QThread::finished, poller_, &QObject::deleteLater);
  // Queued: the poller emits on the worker thread, we apply on ours.
  connect(poller_, &FilePoller::chunk, this, &EventFileTail::on_chunk, Qt::QueuedConnection);
  connect(poller_, &FilePoller::reset, this, &EventFileTail::on_reset, Qt::QueuedConnection);
  connect(poller_, &FilePoller::polled, this, &EventFileTail::on_polled, Qt::QueuedConnection);
  thread_->start();
}

void EventFileTail::stop() {
  if (!thread_) return;
  disconnect(poller_, nullptr, this, nullptr);  // nothing more is applied, even if queued
  thread_->quit();
  thread_->wait();  // at most one poll (a bounded read)
  delete thread_;
  thread_ = nullptr;
  poller_ = nullptr;
  // No finish(): the files did not end, we stopped looking. A partial last
  // line stays unread rather than counted as garbage.
}

void EventFileTail::on_polled(int generation) {
  if (generation == generation_ && thread_) emit polled();
}

void EventFileTail::on_chunk(int generation, const QString& key, const QByteArray& chunk) {
  if (generation != generation_ || !thread_) return;  // queued by a poller already stopped
  if (key == QLatin1String("events")) {
    if (events_) events_->feed(chunk);
    emit events_read(chunk);
    return;
  }
  bool ok = false;
  const int rank = key.mid(4).toInt(&ok);  // "rank<R>"
  if (!ok) return;
  auto& reader = logs_[rank];
  if (!reader) {
    reader = std::make_unique<RankLogReader>(model_, rank);
    if (model_) model_->mark_log_file_followed(rank);
  }
  reader->feed(chunk);
  emit log_read(rank, chunk);
}

void EventFileTail::on_reset(int generation, const QString& key) {
  if (generation != generation_ || !thread_) return;
  // Replaced or truncated: what the model holds no longer matches the files.
  // Start again from byte 0 of everything, with an empty model.
  const QString dir = run_dir_;
  const QString path = key == QLatin1String("events") ? dir + QStringLiteral("/events.jsonl")
                                                      : dir + QStringLiteral("/logs/") + key + QStringLiteral(".log");
  stop();
  if (model_) {
    model_->clear();
    model_->set_run_dir(dir);
  }
  emit file_replaced(path);
  start(dir);
}

}  // namespace medsynth::app
