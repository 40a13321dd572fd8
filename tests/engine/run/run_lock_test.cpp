// The run directory's lock (issue 50 item 6): a second holder is refused
// naming the first one's pid and host; a holder that died leaves lock.json,
// which the next one takes over with a note; a release removes it.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "run/run_lock.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace medsynth;

namespace {

std::string host_name() {
  char buffer[256] = {};
  ::gethostname(buffer, sizeof(buffer) - 1);
  return buffer;
}

// The pid of a process that has ended (and been reaped).
pid_t a_dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace

TEST(RunLock, ASecondHolderIsRefusedNamingTheFirstOnesPidAndHost) {
  test::TempDir dir("run_lock");
  const std::string root = dir.path().string();
  const RunLock first = RunLock::acquire(root, "train");
  EXPECT_TRUE(first.note().empty()) << first.note();
  const auto record = nlohmann::json::parse(test::read_bytes(run_lock_record_file(root)));
  EXPECT_EQ(record.at("pid").get<long>(), ::getpid());
  EXPECT_EQ(record.at("host").get<std::string>(), host_name());
  EXPECT_EQ(record.at("verb").get<std::string>(), "train");
  // flock(2) locks of two open files conflict within one process too.
  try {
    RunLock::acquire(root, "generate");
    FAIL() << "a second lock of a held run was granted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pid " + std::to_string(::getpid()) + " on host " + host_name()), std::string::npos) << what;
    EXPECT_NE(what.find(root), std::string::npos) << what;
  }
  // The refusal left the holder's record alone.
  EXPECT_TRUE(fs::exists(run_lock_record_file(root)));
}

TEST(RunLock, AReleasedLockRemovesItsRecordAndIsTakenWithoutANote) {
  test::TempDir dir("run_lock");
  const std::string root = dir.path().string();
  { const RunLock lock = RunLock::acquire(root, "train"); }
  EXPECT_FALSE(fs::exists(run_lock_record_file(root)));
  const RunLock again = RunLock::acquire(root, "train");
  EXPECT_TRUE(again.note().empty()) << again.note();
}

TEST(RunLock, ADeadHoldersLockIsTakenOverWithANoteNamingIt) {
  test::TempDir dir("run_lock");
  const std::string root = dir.path().string();
  const pid_t dead = a_dead_pid();
  // What a SIGKILLed holder leaves: its record (the kernel dropped its flock).
  test::write_bytes(
      run_lock_record_file(root),
      nlohmann::json{{"pid", dead}, {"host", host_name()}, {"verb", "train"}, {"started", "2026-01-01T00:00:00Z"}}
          .dump());
  const RunLock lock = RunLock::acquire(root, "train");
  EXPECT_NE(lock.note().find("taking over"), std::string::npos) << lock.note();
  EXPECT_NE(lock.note().find("pid " + std::to_string(dead)), std::string::npos) << lock.note();
  const auto record = nlohmann::json::parse(test::read_bytes(run_lock_record_file(root)));
  EXPECT_EQ(record.at("pid").get<long>(), ::getpid());
}
