#include "run/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "volume/atomic_file.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

std::string this_host() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof(buffer) - 1) != 0 || buffer[0] == '\0') return "unknown-host";
  return buffer;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

bool alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

std::optional<RunLockHolder> read_holder(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("pid") || !j["pid"].is_number_integer()) return std::nullopt;
  RunLockHolder h;
  h.pid = j["pid"].get<long>();
  h.host = j.value("host", std::string("?"));
  h.verb = j.value("verb", std::string("?"));
  h.started = j.value("started", std::string("?"));
  return h;
}

// The holder's record may lag its flock by a moment (it is written after).
std::optional<RunLockHolder> read_holder_soon(const std::string& path) {
  for (int tries = 0; tries < 20; ++tries) {
    if (auto h = read_holder(path)) return h;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return std::nullopt;
}

[[noreturn]] void refuse(const std::string& root, const std::optional<RunLockHolder>& holder,
                         const std::string& extra = {}) {
  throw UsageError(root + ": this run is in use by " +
                   (holder ? holder->text()
                           : std::string("another process (its ") + run_lock_record_file(root) + " is not readable)") +
                   "; one process at a time trains or generates in a run directory: wait for it to finish or stop it" +
                   extra);
}

// flock(2) is missing on some cluster file systems (Lustre without -o flock, some NFS).
bool no_locks_here(int error) { return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL; }

}  // namespace

std::string RunLockHolder::text() const {
  return "pid " + std::to_string(pid) + " on host " + host + " (" + verb + ", since " + started + ")";
}

std::string run_lock_record_file(const std::string& root) { return (fs::path(root) / "lock.json").string(); }
std::string run_lock_file(const std::string& root) { return (fs::path(root) / ".lock").string(); }

RunLock RunLock::acquire(const std::string& root, const std::string& verb) {
  RunLock lock;  // record_ stays empty until ours is written: a refusal leaves the holder's alone
  const std::string record_file = run_lock_record_file(root);
  const std::string file = run_lock_file(root);
  lock.fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd_ < 0 && (errno == EROFS || errno == EACCES)) {
    // generate --output-dir elsewhere from a run shared read-only: nothing of it is written here.
    lock.note_ = "not locking " + root + ": it is read-only to this process (" + std::strerror(errno) + ")";
    return lock;
  }
  if (lock.fd_ < 0) throw RuntimeError(file + ": cannot open the run's lock file: " + std::strerror(errno));
  const std::string host = this_host();
  const int locked = ::flock(lock.fd_, LOCK_EX | LOCK_NB);
  const int error = locked == 0 ? 0 : errno;
  // Read after the flock: a holder that released in between has removed its record first.
  const std::optional<RunLockHolder> before = read_holder(record_file);
  const std::string took_over = before ? "taking over the lock of " + root + " from " + before->text() +
                                             ": that process ended without releasing it"
                                       : std::string();
  if (locked == 0) {
    lock.note_ = took_over;  // we hold it, so whoever lock.json names is gone
  } else if (error == EWOULDBLOCK) {
    refuse(root, before ? before : read_holder_soon(record_file));
  } else if (no_locks_here(error)) {
    // No kernel lock to ask: the record decides, and only a dead pid of this host is known stale.
    if (before && (before->host != host || alive(before->pid)))
      refuse(root, before, " (this file system has no flock(2): remove " + record_file + " if that process is gone)");
    lock.note_ = took_over;
  } else {
    throw RuntimeError(file + ": cannot lock the run directory: " + std::strerror(error));
  }
  const nlohmann::json record{
      {"pid", static_cast<long>(::getpid())}, {"host", host}, {"verb", verb}, {"started", utc_now()}};
  write_string_atomically(record_file, record.dump(2) + "\n");
  lock.record_ = record_file;
  return lock;
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), record_(std::move(other.record_)), note_(std::move(other.note_)) {}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  std::error_code ec;
  if (!record_.empty()) fs::remove(record_, ec);  // first: a record without a lock reads as a dead holder's
  ::close(fd_);
}

}  // namespace medsynth
