// One worker process of the launcher: started with fork+exec in its own
// process group (a terminal's Ctrl-C reaches the launcher only, which then
// stops the workers in order), killed with the launcher (PR_SET_PDEATHSIG: no
// orphan keeps a GPU or a port), stdout/stderr read through non-blocking pipes,
// the last stderr lines kept for the failure report. Used by agent.cpp.
#pragma once

#include <sys/types.h>

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace medsynth {

struct WorkerSpec {
  std::string program;
  std::vector<std::string> args;            // argv[1..]
  std::map<std::string, std::string> env;   // added to (or replacing in) the launcher's environment
  int rank = 0;
};

enum class WorkerState { running, stopped, exited };

class WorkerProcess {
 public:
  // Throws RuntimeError when fork/exec fails.
  explicit WorkerProcess(WorkerSpec spec);
  ~WorkerProcess();  // SIGKILLs a worker still running and reaps it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  int rank() const { return spec_.rank; }
  int stdout_fd() const { return out_fd_; }
  int stderr_fd() const { return err_fd_; }

  // Drains the pipes; complete lines go to the callbacks (stderr lines are also kept).
  void read_output(const std::function<void(const std::string&)>& on_stdout_line,
                   const std::function<void(const std::string&)>& on_stderr_line);
  // Non-blocking status check (waitpid WNOHANG | WUNTRACED | WCONTINUED).
  WorkerState poll();
  WorkerState state() const { return state_; }
  // exit code, or 128 + signal when killed by a signal (as a shell reports it).
  int exit_code() const { return exit_code_; }
  bool killed_by_signal() const { return signal_ != 0; }
  int signal_number() const { return signal_; }
  bool was_stopped() const { return ever_stopped_; }
  void send(int signal);
  std::vector<std::string> last_stderr_lines() const { return {tail_.begin(), tail_.end()}; }

 private:
  void drain(int& fd, std::string& partial, const std::function<void(const std::string&)>& on_line, bool keep);

  WorkerSpec spec_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_partial_;
  std::string err_partial_;
  std::deque<std::string> tail_;
  WorkerState state_ = WorkerState::running;
  int exit_code_ = 0;
  int signal_ = 0;
  bool ever_stopped_ = false;
};

// "exit code 1", "killed by SIGKILL", "stopped (SIGSTOP)".
std::string describe_worker_status(const WorkerProcess& worker);

}  // namespace medsynth
