// A process with the crash report installed that dies of a fatal signal
// first writes the signal and its stack to stderr, then still dies of that
// signal (launchers and ctest see the same status as without it).
#include <gtest/gtest.h>

#include <csignal>

#include "run/crash_report.hpp"

using medsynth::install_crash_report;

namespace {

// Not inlined, so that a real fault, not a raise(), is what the handler sees.
[[gnu::noinline]] int read_through(volatile int* pointer) { return *pointer; }

}  // namespace

TEST(CrashReport, ASegmentationFaultPrintsTheSignalAndTheStackThenStillKillsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // '.' spans lines in gtest's POSIX regular expressions: after the heading,
  // at least one symbolised frame ("file(symbol+0x...)[0x...]").
  EXPECT_EXIT(
      {
        install_crash_report();
        install_crash_report();  // idempotent
        read_through(nullptr);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "medsynth: fatal signal 11 \\(Segmentation fault\\), process [0-9]+; the stack, innermost first:\n.*\\(.*\\+0x[0-9a-f]+\\) ?\\[0x[0-9a-f]+\\]");
}

TEST(CrashReport, AnAbortIsReportedAndStillEndsInSigabrt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report();
        std::abort();
      },
      ::testing::KilledBySignal(SIGABRT), "medsynth: fatal signal 6 \\(Aborted\\)");
}

TEST(CrashReport, WithoutItADeathLeavesNoReport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The control: what the two cases above see comes from the handler.
  EXPECT_EXIT(std::raise(SIGSEGV), ::testing::KilledBySignal(SIGSEGV), "^$");
}
