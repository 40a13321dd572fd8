#include "events/run_logger.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/error.hpp"
#include "events/event_writer.hpp"
#include "events/progress_bar.hpp"
#include "events/time_format.hpp"

namespace medsynth {
namespace {

bool write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

RunLogger::RunLogger(RunLoggerOptions options) : options_(std::move(options)) {
  if (options_.path.empty()) return;
  log_path_ = options_.path;
  if (log_path_.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(log_path_.parent_path(), ec);
    if (ec) throw RuntimeError(log_path_.parent_path().string() + ": cannot create log directory: " + ec.message());
  }
  fd_ = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw RuntimeError(log_path_.string() + ": cannot open log file: " + std::strerror(errno));
}

RunLogger::~RunLogger() {
  if (fd_ >= 0) ::close(fd_);
}

void RunLogger::attach_progress_bar(ProgressBar* bar) {
  std::lock_guard lock(mutex_);
  bar_ = bar;
}

void RunLogger::attach_events(EventWriter* events) {
  std::lock_guard lock(mutex_);
  events_ = events;
}

void RunLogger::set_stderr_level(LogLevel level) {
  std::lock_guard lock(mutex_);
  options_.stderr_level = level;
}

std::string RunLogger::format_line(LogLevel level, int rank, std::string_view message) {
  std::string line = format_log_time_utc_ms(std::chrono::system_clock::now());
  line += " [rank " + std::to_string(rank) + "] ";
  line += to_log_label(level);
  line += ' ';
  line += message;
  line += '\n';
  return line;
}

void RunLogger::log(LogLevel level, std::string_view message) {
  const std::string line = format_line(level, options_.rank, message);
  EventWriter* events = nullptr;
  {
    // One lock for file and stderr keeps both in the same order across threads.
    std::lock_guard lock(mutex_);
    if (fd_ >= 0 && level >= options_.file_level && !write_all(fd_, line))
      throw RuntimeError(log_path_.string() + ": cannot write log line: " + std::strerror(errno));
    if (level >= options_.stderr_level) {
      if (bar_)
        bar_->print_above(line);
      else
        write_all(options_.stderr_fd, line);  // a closed terminal must not stop the run
    }
    events = events_;
  }
  if (events && level >= LogLevel::warn) events->log(level, message);
}

}  // namespace medsynth
