// The worker half of EventFileTail: lives on a worker thread, polls a run
// directory's events.jsonl and logs/rank*.log with a timer, and emits whatever
// was appended since the last poll as queued signals. Knows nothing about the
// event format. Detects truncation and replacement (size below the read offset,
// or another inode) and then starts the file again from byte 0.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>

namespace medsynth::app {

class FilePoller : public QObject {
  Q_OBJECT

 public:
  // Keys of the signals: "events" or "rank<R>". generation is echoed in every
  // signal so that the owner can drop what an earlier poller queued.
  FilePoller(int generation, QString run_dir, bool events, bool rank_logs, int interval_ms, qsizetype max_chunk_bytes);

 public slots:
  void start();  // on the worker thread: first poll at once, then every interval
  void stop();
  void poll();

 signals:
  void chunk(int generation, const QString& key, const QByteArray& data);
  void reset(int generation, const QString& key);
  void polled(int generation);

 private:
  struct Followed {
    qint64 offset = 0;
    quint64 inode = 0;
    bool seen = false;
  };
  void poll_file(const QString& key, const QString& path);

  int generation_;
  QString run_dir_;
  bool events_;
  bool rank_logs_;
  int interval_ms_;
  qsizetype max_chunk_bytes_;
  QTimer* timer_ = nullptr;
  std::map<QString, Followed> files_;
};

}  // namespace medsynth::app
