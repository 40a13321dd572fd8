// Runs medsynth-engine (or any program) as a real child process for CLI tests:
// stdout/stderr captured to files, exit code or signal decoded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace medsynth::test {

struct ProcessResult {
  int exit_code = -1;   // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

// The override that keeps a test of CPU training on the CPU where the machine
// has a GPU: under `device: auto`, `launch --nproc-per-node 2` on a one-GPU
// node is refused (rank 1 has no GPU), rightly for a user. The `cuda` tests
// are the GPU twins.
inline constexpr const char* k_on_cpu = "training.device=cpu";

// The engine binary under test: $MEDSYNTH_ENGINE, else build/bin/medsynth-engine.
std::string engine_binary();

class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& argv, const std::string& working_dir);
  ~ChildProcess();  // kills a child still running
  pid_t pid() const { return pid_; }
  ProcessResult wait();

 private:
  pid_t pid_ = -1;
  std::string out_path_, err_path_;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_dir);

// Polls `condition` every 20 ms until it holds or `timeout` passes.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace medsynth::test
