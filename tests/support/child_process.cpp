#include "support/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "support/temp_dir.hpp"

namespace medsynth::test {

std::string engine_binary() {
  const char* e = std::getenv("MEDSYNTH_ENGINE");
  return e ? e : MEDSYNTH_ENGINE_DEFAULT;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& working_dir) {
  static int counter = 0;
  const std::string base = working_dir + "/.child-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  out_path_ = base + ".out";
  err_path_ = base + ".err";
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    if (chdir(working_dir.c_str()) != 0) _exit(127);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

ProcessResult ChildProcess::wait() {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  ProcessResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = read_bytes(out_path_);
  r.err = read_bytes(err_path_);
  return r;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& working_dir) {
  ChildProcess child(argv, working_dir);
  return child.wait();
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

}  // namespace medsynth::test
