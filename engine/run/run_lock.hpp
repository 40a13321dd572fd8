// The one writer of a run directory (issue 50 item 6): `train`, `train
// --resume RUN` and `generate` hold this for their whole life, so that a
// second process on the same run (a console resuming a detached run that is
// still going, a second terminal) is refused instead of writing events and
// checkpoints over the first one's. Taken by the CLI's verbs on rank 0 only:
// the other ranks, and the `launch` agent, follow rank 0 into the run and
// never take it (an agent restarting its workers would otherwise lock its
// own rank 0 out).
//
// The lock is flock(2) on RUN/.lock, which the kernel drops when the holder
// dies however it dies, so a crash never leaves a run locked; beside it
// RUN/lock.json (pid, host, verb, time; written atomically) says who holds
// it, for the refusal, and is removed on release. A lock.json found on
// taking the lock is a holder that died without releasing it: taken over,
// with a note for the caller to print. On a file system without flock
// (Lustre mounted without -o flock) lock.json alone decides: a live pid on
// this host, or any other host's record, refuses (the message says which
// file to remove).
#pragma once

#include <string>

namespace medsynth {

// Who holds a run's lock, as lock.json says.
struct RunLockHolder {
  long pid = 0;
  std::string host;
  std::string verb;          // "train", "generate"
  std::string started;       // UTC, ISO 8601
  std::string text() const;  // "pid 123 on host node7 (train, since 2026-...)"
};

class RunLock {
 public:
  // Takes the lock of run directory `root` for `verb`. UsageError naming the
  // run, the holder's pid and host when another process holds it;
  // RuntimeError when the lock file cannot be made.
  static RunLock acquire(const std::string& root, const std::string& verb);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&&) = delete;
  RunLock(const RunLock&) = delete;
  ~RunLock();  // removes lock.json, then drops the lock

  // Non-empty when a dead holder's lock was taken over: what to tell the user.
  const std::string& note() const { return note_; }

 private:
  RunLock() = default;
  int fd_ = -1;
  std::string record_;
  std::string note_;
};

// RUN/lock.json and RUN/.lock (written here once).
std::string run_lock_record_file(const std::string& root);
std::string run_lock_file(const std::string& root);

}  // namespace medsynth
