// A TCP listening socket bound to one chosen address — never to all of them.
// The c10d TCPStore has no authentication and, given "127.0.0.1", still listens
// on every interface (PLATFORM-NOTES.md); we bind the socket ourselves and hand
// the descriptor to the store (TCPStoreOptions::masterListenFd). Also used to
// pick a free port when the user gives none. No LibTorch here.
#pragma once

#include <string>

namespace medsynth {

class ListenSocket {
 public:
  // Binds `address` (numeric, or a host name resolved to its first IPv4/IPv6
  // address) at `port` (0: a free port) and listens. Throws UsageError naming
  // the address and port when it is in use ("another job's rendezvous?") or
  // cannot be bound (not an address of this machine).
  ListenSocket(const std::string& address, int port);
  ~ListenSocket();
  ListenSocket(const ListenSocket&) = delete;
  ListenSocket& operator=(const ListenSocket&) = delete;

  int fd() const { return fd_; }
  int port() const { return port_; }
  const std::string& address() const { return address_; }
  // Gives up ownership (the store now owns the descriptor).
  int release();

 private:
  int fd_ = -1;
  int port_ = 0;
  std::string address_;
};

// True when nothing listens on address:port right now (bind probe).
bool port_is_free(const std::string& address, int port);

}  // namespace medsynth
