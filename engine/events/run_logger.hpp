// The human-readable log of one rank: every line goes to the rank's log file
// (RunDirectory::rank_log: <run>/logs/rank{R}.log)
// (appended, one write per line, so `tail -f` and the launcher's "last lines of
// the failed rank" see whole lines) and to stderr, above the progress bar if
// one is attached. Warnings and errors are also forwarded to the event stream
// as `log` events so the console shows them. Used by the trainer, data loading
// and the CLI. Thread-safe.
//
// Line format (UTC): "2026-11-22 05:31:02.123 [rank 0] INFO message".
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "events/log_level.hpp"

namespace medsynth {

class EventWriter;
class ProgressBar;

struct RunLoggerOptions {
  std::filesystem::path path{};            // the log file, e.g. RunDirectory::rank_log(rank); empty = stderr only
  int rank = 0;
  LogLevel stderr_level = LogLevel::info;  // quiet mode: LogLevel::warn
  LogLevel file_level = LogLevel::debug;   // the file keeps everything by default
  int stderr_fd = 2;                       // tests redirect it
};

class RunLogger {
 public:
  // Creates the file's folder and opens the file for append. Throws
  // RuntimeError if it cannot.
  explicit RunLogger(RunLoggerOptions options);
  ~RunLogger();
  RunLogger(const RunLogger&) = delete;
  RunLogger& operator=(const RunLogger&) = delete;

  // Attachments are not owned: each must outlive the logger, or be detached
  // (nullptr) first. With a bar, stderr lines are printed through it (the
  // bar's fd) so they do not tear its line.
  void attach_progress_bar(ProgressBar* bar);
  // warn and error lines are also sent as `log` events.
  void attach_events(EventWriter* events);

  // Throws RuntimeError if the log file cannot be written; a broken stderr is ignored.
  void log(LogLevel level, std::string_view message);
  void debug(std::string_view message) { log(LogLevel::debug, message); }
  void info(std::string_view message) { log(LogLevel::info, message); }
  void warn(std::string_view message) { log(LogLevel::warn, message); }
  void error(std::string_view message) { log(LogLevel::error, message); }

  void set_stderr_level(LogLevel level);
  // Empty if there is no log file.
  const std::filesystem::path& log_path() const noexcept { return log_path_; }

  // The text of one line (with its newline), as written to file and stderr.
  static std::string format_line(LogLevel level, int rank, std::string_view message);

 private:
  RunLoggerOptions options_;
  std::filesystem::path log_path_;
  int fd_ = -1;
  std::mutex mutex_;
  ProgressBar* bar_ = nullptr;
  EventWriter* events_ = nullptr;
};

}  // namespace medsynth
