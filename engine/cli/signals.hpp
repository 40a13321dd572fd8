// SIGINT/SIGTERM/SIGUSR1 handling for long verbs: the first signal sets a flag the
// trainer polls at step boundaries (it saves a checkpoint, then stops); a
// second one exits at once.
#pragma once

#include <atomic>

namespace medsynth::cli {

void install_stop_handlers();
const std::atomic<int>& stop_flag();
int stop_signal_number();

}  // namespace medsynth::cli
