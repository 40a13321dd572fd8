// What a process that dies of a fatal signal leaves behind. On a cluster or
// GPU node a crashed worker otherwise leaves only "Segmentation fault" in the
// launcher's log: nodes rarely keep core files and have no debugger. With
// this installed the process first writes the signal and its stack to stderr
// (symbolised where the symbols are exported: LibTorch, CUDA, the C and C++
// runtimes), then dies of the same signal, so exit statuses and the
// launcher's restart rules stay as they were.
#pragma once

namespace medsynth {

// SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. Idempotent; call it early in
// main() (medsynth-engine does) or in a test process.
void install_crash_report();

}  // namespace medsynth
