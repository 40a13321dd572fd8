#include "dist/listen_socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace medsynth {
namespace {

struct AddressList {
  addrinfo* head = nullptr;
  ~AddressList() {
    if (head) freeaddrinfo(head);
  }
};

std::string where(const std::string& address, int port) { return address + ":" + std::to_string(port); }

}  // namespace

ListenSocket::ListenSocket(const std::string& address, int port) : address_(address) {
  if (port < 0 || port > 65535) throw UsageError("rendezvous port " + std::to_string(port) + " is not in 0..65535");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  AddressList list;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(address.c_str(), service.c_str(), &hints, &list.head); rc != 0)
    throw UsageError("rendezvous address '" + address + "' cannot be resolved: " + gai_strerror(rc));
  int last_errno = 0;
  for (addrinfo* ai = list.head; ai; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    // SO_REUSEADDR lets a restarted launcher reuse a port whose old connections
    // sit in TIME_WAIT; Linux still refuses a second listener on the same port.
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ai->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 2048) == 0) {
      sockaddr_storage bound{};
      socklen_t len = sizeof(bound);
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                          : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      fd_ = fd;
      return;
    }
    last_errno = errno;
    ::close(fd);
  }
  if (last_errno == EADDRINUSE)
    throw UsageError("rendezvous port " + where(address, port) +
                     " is already in use (another job's rendezvous?); choose another --master-port, or omit it to pick a free one");
  throw UsageError("cannot listen on " + where(address, port) + ": " + std::strerror(last_errno) +
                   (last_errno == EADDRNOTAVAIL ? " (not an address of this machine)" : ""));
}

ListenSocket::~ListenSocket() {
  if (fd_ >= 0) ::close(fd_);
}

int ListenSocket::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

bool port_is_free(const std::string& address, int port) {
  try {
    ListenSocket probe(address, port);
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

}  // namespace medsynth
