#include "dist/worker_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

extern char** environ;

namespace medsynth {
namespace {

constexpr std::size_t k_tail_lines = 30;

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    if (!extra.count(key)) out.push_back(entry);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

WorkerProcess::WorkerProcess(WorkerSpec spec) : spec_(std::move(spec)) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw RuntimeError(std::string("launcher: pipe failed: ") + std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    throw RuntimeError(std::string("launcher: pipe failed: ") + std::strerror(errno));
  }
  // Everything the child needs is built before fork: after fork only
  // async-signal-safe calls are allowed (the launcher has store threads).
  std::vector<std::string> args{spec_.program};
  args.insert(args.end(), spec_.args.begin(), spec_.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envs = merged_environment(spec_.env);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();

  pid_ = ::fork();
  if (pid_ < 0) throw RuntimeError(std::string("launcher: fork failed: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the launcher died before prctl took effect
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execve(spec_.program.c_str(), argv.data(), envp.data());
    const char msg[] = "launcher: exec of the worker failed\n";
    (void)!::write(STDERR_FILENO, msg, sizeof(msg) - 1);
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
  ::fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0 && state_ != WorkerState::exited) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
  if (err_fd_ >= 0) ::close(err_fd_);
}

void WorkerProcess::drain(int& fd, std::string& partial, const std::function<void(const std::string&)>& on_line, bool keep) {
  if (fd < 0) return;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      partial.append(buffer, static_cast<std::size_t>(n));
      std::size_t start = 0;
      for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string line = partial.substr(start, nl - start);
        if (keep) {
          tail_.push_back(line);
          if (tail_.size() > k_tail_lines) tail_.pop_front();
        }
        if (on_line) on_line(line);
      }
      partial.erase(0, start);
      continue;
    }
    if (n == 0) {  // writer closed (the worker exited)
      if (!partial.empty()) {
        if (keep) tail_.push_back(partial);
        if (on_line) on_line(partial);
        partial.clear();
      }
      ::close(fd);
      fd = -1;
    }
    return;  // EAGAIN or error
  }
}

void WorkerProcess::read_output(const std::function<void(const std::string&)>& on_stdout_line,
                                const std::function<void(const std::string&)>& on_stderr_line) {
  drain(out_fd_, out_partial_, on_stdout_line, false);
  drain(err_fd_, err_partial_, on_stderr_line, true);
}

WorkerState WorkerProcess::poll() {
  if (state_ == WorkerState::exited) return state_;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG | WUNTRACED | WCONTINUED);
  if (r != pid_) return state_;
  if (WIFEXITED(status)) {
    state_ = WorkerState::exited;
    exit_code_ = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    state_ = WorkerState::exited;
    signal_ = WTERMSIG(status);
    exit_code_ = 128 + signal_;
  } else if (WIFSTOPPED(status)) {
    state_ = WorkerState::stopped;
    ever_stopped_ = true;
  } else if (WIFCONTINUED(status)) {
    state_ = WorkerState::running;
  }
  return state_;
}

void WorkerProcess::send(int signal) {
  if (pid_ > 0 && state_ != WorkerState::exited) ::kill(pid_, signal);
}

std::string describe_worker_status(const WorkerProcess& w) {
  if (w.state() == WorkerState::stopped) return "stopped (SIGSTOP) and stopped answering";
  if (w.state() == WorkerState::running) return "running";
  if (w.killed_by_signal()) {
    const char* name = ::sigabbrev_np(w.signal_number());
    return std::string("killed by SIG") + (name ? name : std::to_string(w.signal_number()).c_str()) + " (exit code " +
           std::to_string(w.exit_code()) + ")";
  }
  return "exit code " + std::to_string(w.exit_code());
}

}  // namespace medsynth
