#include "cli/signals.hpp"

#include <csignal>
#include <unistd.h>

namespace medsynth::cli {
namespace {

std::atomic<int> g_stop{0};

extern "C" void on_stop_signal(int sig) {
  if (g_stop.exchange(sig) != 0) _exit(128 + sig);  // second signal: leave now
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // SLURM's --signal=USR1@90: the time limit is near. Same checkpoint-and-stop
  // path; verb_train then asks SLURM to requeue the job (slurm_requeue.hpp).
  sigaction(SIGUSR1, &sa, nullptr);
}

const std::atomic<int>& stop_flag() { return g_stop; }
int stop_signal_number() { return g_stop.load(); }

}  // namespace medsynth::cli
