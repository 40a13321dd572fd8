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

// A call to address 0, as PyTorch 2.11's remove_all made through its
// unresolved weak reference on the GPU nodes.
using Function = void (*)();
Function volatile g_unresolved = nullptr;
[[gnu::noinline]] void call_through_null() { g_unresolved(); }

}  // namespace

TEST(CrashReport, ASegmentationFaultPrintsTheSignalAndTheStackThenStillKillsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // '.' spans lines in gtest's POSIX regular expressions: the faulting
  // instruction as a frame ("file(symbol+0x...)[0x...]": the line that still
  // says where when the unwinder cannot step past the signal frame), the
  // address read (null), then at least one frame of the stack.
  EXPECT_EXIT(
      {
        install_crash_report();
        install_crash_report();  // idempotent
        read_through(nullptr);
      },
      ::testing::KilledBySignal(SIGSEGV),
      "medsynth: fatal signal 11 \\(Segmentation fault\\), process [0-9]+; at [^\n]*\\(.*\\+0x[0-9a-f]+\\) ?\\[0x[0-9a-f]+\\]\n"
      "medsynth: fault address 0x0; the stack, innermost first:\n.*\\(.*\\+0x[0-9a-f]+\\) ?\\[0x[0-9a-f]+\\]");
}

// The unwinder cannot step past a frame at address 0, so the stack ends at
// the handler: the report names the call's caller instead (here
// call_through_null, in this test program: "file(+0x...)" or "file(symbol+0x...)").
TEST(CrashReport, ACallToAddressZeroNamesTheCaller) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_crash_report();
        call_through_null();
      },
      ::testing::KilledBySignal(SIGSEGV),
      "; at address 0: a call through a null function pointer or an unresolved weak symbol\n"
      "medsynth: called from [^\n]*crash_report_test\\(.*\\+0x[0-9a-f]+\\) ?\\[0x[0-9a-f]+\\]\n"
      "medsynth: fault address 0x0; the stack");
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
