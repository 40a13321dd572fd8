// Real multi-process groups for tests: rank 0 runs in the test process, ranks
// 1..N-1 in forked children (forked before LibTorch starts any thread pool:
// each ctest case is its own process and calls this first). A child reports
// failure by its exit code and its message on stderr.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <functional>
#include <string>
#include <vector>

#include "dist/listen_socket.hpp"

namespace medsynth::test {

// A port nothing listens on right now (probe and release; tests only).
inline int free_port() {
  ListenSocket probe("127.0.0.1", 0);
  return probe.port();
}

struct Ranks {
  std::vector<pid_t> children;  // index r-1 is rank r
};

// Forks ranks 1..world-1 running body(rank) (0 = success, else exit code 1
// with the exception text on stderr). Returns in the parent (rank 0).
inline Ranks fork_ranks(int world, const std::function<void(int)>& body, int spawned = -1) {
  Ranks r;
  const int last = spawned < 0 ? world : spawned;
  for (int rank = 1; rank < last; ++rank) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int code = 0;
      try {
        body(rank);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        code = 1;
      }
      std::fflush(stderr);
      ::_exit(code);
    }
    r.children.push_back(pid);
  }
  return r;
}

// Exit codes of the children (128 + signal when killed).
inline std::vector<int> wait_ranks(const Ranks& r) {
  std::vector<int> codes;
  for (pid_t pid : r.children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

// LISTEN entries of /proc/net/tcp and tcp6 on `port`, as hex local addresses
// ("0100007F" is 127.0.0.1, "00000000" all IPv4 addresses).
inline std::vector<std::string> listeners_on(int port) {
  std::vector<std::string> out;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state;
      fields >> slot >> local >> remote >> state;
      if (state == "0A" && std::stoi(local.substr(local.find(':') + 1), nullptr, 16) == port) out.push_back(local.substr(0, local.find(':')));
    }
  }
  return out;
}

}  // namespace medsynth::test
