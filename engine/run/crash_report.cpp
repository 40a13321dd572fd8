#include "run/crash_report.hpp"

#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
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

void write_hex(std::uintptr_t value) {
  char text[2 + 16 + 1] = "0x";
  int n = 2;
  bool leading = true;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const unsigned digit = (value >> shift) & 0xfu;
    if (leading && digit == 0 && shift > 0) continue;
    leading = false;
    text[n++] = "0123456789abcdef"[digit];
  }
  text[n] = '\0';
  write_text(text);
}

// The instruction that faulted, from the interrupted context (null where
// the architecture is not one of ours).
void* faulting_instruction(void* context) {
  if (context == nullptr) return nullptr;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return nullptr;
#endif
}

// Where a call to address 0 came from: the return address it pushed (x86-64)
// or left in the link register (AArch64).
void* caller_of_null_call(void* context) {
  if (context == nullptr) return nullptr;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return *reinterpret_cast<void* const*>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return reinterpret_cast<void*>(uc->uc_mcontext.regs[30]);
#else
  (void)uc;
  return nullptr;
#endif
}

extern "C" void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  const char* name = "fatal signal";
  for (const auto& s : k_fatal)
    if (s.number == sig) name = s.name;
  write_text("medsynth: fatal signal ");
  write_number(sig);
  write_text(" (");
  write_text(name);
  write_text("), process ");
  write_number(static_cast<int>(::getpid()));
  // The unwinder cannot always step past the signal frame (code without
  // unwind tables, a call through a bad pointer): then the stack below ends
  // at the handler, and this line is what still says where it happened
  // (library and offset: addr2line names it).
  void* pc = faulting_instruction(context);
  write_text("; at ");
  if (pc != nullptr) {
    ::backtrace_symbols_fd(&pc, 1, STDERR_FILENO);
  } else {
    // What the GPU nodes showed (docs/performance.md, "The five crashes"):
    // no frame to print, and the unwinder stops right here too.
    write_text("address 0: a call through a null function pointer or an unresolved weak symbol\nmedsynth: called from ");
    void* caller = caller_of_null_call(context);
    if (caller != nullptr) {
      ::backtrace_symbols_fd(&caller, 1, STDERR_FILENO);
    } else {
      write_text("(unknown)\n");
    }
  }
  write_text("medsynth: fault address ");
  write_hex(reinterpret_cast<std::uintptr_t>(info != nullptr ? info->si_addr : nullptr));
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
  action.sa_sigaction = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_SIGINFO;
  for (const auto& s : k_fatal) ::sigaction(s.number, &action, nullptr);
}

}  // namespace medsynth
