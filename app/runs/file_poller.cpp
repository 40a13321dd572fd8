// FilePoller: stat + read-from-offset on a timer, on its own thread.
#include "app/runs/file_poller.hpp"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <sys/stat.h>

namespace medsynth::app {

FilePoller::FilePoller(int generation, QString run_dir, bool events, bool rank_logs, int interval_ms, qsizetype max_chunk_bytes)
    : generation_(generation),
      run_dir_(std::move(run_dir)),
      events_(events),
      rank_logs_(rank_logs),
      interval_ms_(interval_ms),
      max_chunk_bytes_(max_chunk_bytes) {}

void FilePoller::start() {
  if (!timer_) {
    timer_ = new QTimer(this);  // created here so that it lives on the worker thread
    timer_->setInterval(interval_ms_);
    connect(timer_, &QTimer::timeout, this, &FilePoller::poll);
  }
  timer_->start();
  poll();
}

void FilePoller::stop() {
  if (timer_) timer_->stop();
}

void FilePoller::poll() {
  bool more = false;
  auto follow = [&](const QString& key, const QString& path) {
    const qint64 before = files_[key].offset;
    poll_file(key, path);
    // A chunk cut at max_chunk_bytes: come back at once for the rest.
    if (files_[key].offset - before >= max_chunk_bytes_) more = true;
  };
  if (rank_logs_) {
    static const QRegularExpression rank_file(QStringLiteral(R"(^rank(\d+)\.log$)"));
    const QDir logs(run_dir_ + QStringLiteral("/logs"));
    const QStringList names = logs.entryList({QStringLiteral("rank*.log")}, QDir::Files, QDir::Name);
    for (const auto& name : names) {
      const auto m = rank_file.match(name);
      if (m.hasMatch()) follow(QStringLiteral("rank") + m.captured(1), logs.filePath(name));
    }
  }
  // After the logs: a rank whose file is followed drops the events' copies of its warnings.
  if (events_) follow(QStringLiteral("events"), run_dir_ + QStringLiteral("/events.jsonl"));
  emit polled(generation_);
  if (more && timer_ && timer_->isActive()) QTimer::singleShot(0, this, &FilePoller::poll);
}

void FilePoller::poll_file(const QString& key, const QString& path) {
  Followed& f = files_[key];
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (f.seen && !QFile::exists(path)) {  // deleted: whatever comes next is a new file
      f = {};
      emit reset(generation_, key);
    }
    return;
  }
  struct stat st {};
  if (::fstat(file.handle(), &st) != 0) return;
  const auto inode = static_cast<quint64>(st.st_ino);
  const auto size = static_cast<qint64>(st.st_size);
  if (f.seen && (inode != f.inode || size < f.offset)) {
    // Replaced or truncated: start over, and tell the owner to forget what it read.
    f.offset = 0;
    emit reset(generation_, key);
  }
  f.seen = true;
  f.inode = inode;
  if (size <= f.offset) return;
  if (!file.seek(f.offset)) return;
  const QByteArray data = file.read(std::min<qint64>(size - f.offset, max_chunk_bytes_));
  if (data.isEmpty()) return;
  f.offset += data.size();
  emit chunk(generation_, key, data);
}

}  // namespace medsynth::app
