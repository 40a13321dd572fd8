// The engine's one error rule: every failure that crosses a module boundary is
// thrown as a medsynth::Error subclass, and only the CLI edge (engine/cli)
// catches it, prints it and turns its kind into an exit code. Libraries never
// print-and-continue. Header-only so that medsynth_config and medsynth_volume
// (which the GUI may link) share it without pulling LibTorch.
#pragma once

#include <cerrno>
#include <stdexcept>
#include <string>
#include <vector>

namespace medsynth {

// Why something failed, which decides the exit code at the CLI edge.
enum class ErrorKind {
  runtime,   // exit 1: the run failed (I/O, numerical, internal)
  usage,     // exit 2: bad command line or job file
  data,      // exit 3: an input volume/manifest is unusable
  storage,   // exit 4: the disk is full or a file-size/quota limit was hit (a restart cannot help)
  interrupted// exit 130: stopped by a signal after the state was saved
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// A file or volume that cannot be used. The message names the file and what is wrong.
class DataError : public Error {
 public:
  DataError(const std::string& path, const std::string& reason)
      : Error(ErrorKind::data, path + ": " + reason), path_(path), reason_(reason) {}
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

// One problem in a job document, addressed by its dotted field path.
struct FieldError {
  std::string path;    // e.g. "training.batch_size"
  std::string reason;  // e.g. "must be >= 1 (got 0)"
  std::string to_string() const { return path.empty() ? reason : path + ": " + reason; }
};

// Every problem found in a job document at once, not just the first.
class ConfigError : public Error {
 public:
  explicit ConfigError(std::vector<FieldError> errors, std::string source = {})
      : Error(ErrorKind::usage, format(errors, source)), errors_(std::move(errors)), source_(std::move(source)) {}
  const std::vector<FieldError>& errors() const noexcept { return errors_; }
  const std::string& source() const noexcept { return source_; }

 private:
  static std::string format(const std::vector<FieldError>& errors, const std::string& source) {
    std::string out = (source.empty() ? std::string("job") : source) + ": " + std::to_string(errors.size()) +
                      (errors.size() == 1 ? " error" : " errors");
    for (const auto& e : errors) out += "\n  " + e.to_string();
    return out;
  }
  std::vector<FieldError> errors_;
  std::string source_;
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ErrorKind::usage, message) {}
};

class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& message) : Error(ErrorKind::runtime, message) {}
};

// A write refused for lack of room (ENOSPC, EDQUOT, EFBIG): not retried, since
// the next attempt would meet the same full disk.
class StorageError : public Error {
 public:
  explicit StorageError(const std::string& message) : Error(ErrorKind::storage, message) {}
};

// RuntimeError, or StorageError when errno says the disk or a limit is full.
[[noreturn]] inline void throw_write_error(const std::string& message, int error_number) {
  if (error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG) throw StorageError(message);
  throw RuntimeError(message);
}

// Thrown after Ctrl-C/SIGTERM once the trainer has written its checkpoint.
class Interrupted : public Error {
 public:
  explicit Interrupted(const std::string& message) : Error(ErrorKind::interrupted, message) {}
};

}  // namespace medsynth
