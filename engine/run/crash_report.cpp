#include "run/crash_report.hpp"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace medsynth {
namespace {

struct FatalSignal {
  int number;
  const char* name;  // strsignal() is not async-signal-safe
};
constexpr FatalSignal k_fatal[] = {{SIGSEGV, "Segmentation fault"},
                                   {SIGBUS, "Bus error"},
                                   {SIGILL, "Illegal instruction"},
                                   {SIGFPE, "Floating point exception"},
                                   {SIGABRT, "Aborted"}};

std::atomic<bool> g_installed{false};
// A stack overflow's SIGSEGV cannot run its handler on the stack it
// overflowed (this covers the installing thread, normally the main one).
alignas(16) char g_signal_stack[64 * 1024];

void write_text(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void write_number(int value) {
  char digits[16];
  int n = 0;
  unsigned v = value < 0 ? 0u : static_cast<unsigned>(value);
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < 15);
  char text[16];
  for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
  text[n] = '\0';
  write_text(text);
}

extern "C" void on_fatal_signal(int sig) {
  const char* name = "fatal signal";
  for (const auto& s : k_fatal)
    if (s.number == sig) name = s.name;
  write_text("medsynth: fatal signal ");
  write_number(sig);
  write_text(" (");
  write_text(name);
  write_text("), process ");
  write_number(static_cast<int>(::getpid()));
  write_text("; the stack, innermost first:\n");
  void* frames[64];
  const int count = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
  // SA_RESETHAND put the default action back: die of this signal, as without
  // the handler (a fault re-raises on return; a raise() needs raising again).
  ::raise(sig);
}

}  // namespace

void install_crash_report() {
  if (g_installed.exchange(true)) return;
  // backtrace() loads libgcc's unwinder on its first call, which allocates:
  // do that now, not inside the handler.
  void* warm_up[1];
  ::backtrace(warm_up, 1);
  stack_t stack{};
  stack.ss_sp = g_signal_stack;
  stack.ss_size = sizeof g_signal_stack;
  ::sigaltstack(&stack, nullptr);
  struct sigaction action{};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_ONSTACK;
  for (const auto& s : k_fatal) ::sigaction(s.number, &action, nullptr);
}

}  // namespace medsynth
