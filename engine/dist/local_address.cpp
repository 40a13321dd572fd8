#include "dist/local_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace medsynth {
namespace {

std::string numeric_host(const sockaddr* address, socklen_t length) {
  char text[NI_MAXHOST] = {};
  if (::getnameinfo(address, length, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) != 0) return {};
  std::string s = text;
  // A link-local IPv6 address carries its scope ("fe80::1%eth0"); Gloo takes it as is.
  return s;
}

struct AddrInfoDeleter {
  void operator()(addrinfo* a) const { ::freeaddrinfo(a); }
};

}  // namespace

std::string local_address_routing_to(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* raw = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), "9", &hints, &raw); rc != 0)
    throw UsageError("master address '" + host + "' does not resolve: " + ::gai_strerror(rc));
  std::unique_ptr<addrinfo, AddrInfoDeleter> list(raw);
  std::string last_error = "no address";
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    // connect() on a datagram socket only chooses the route and source address.
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    sockaddr_storage own{};
    socklen_t own_length = sizeof(own);
    const bool named = ::getsockname(fd, reinterpret_cast<sockaddr*>(&own), &own_length) == 0;
    ::close(fd);
    if (!named) continue;
    if (std::string text = numeric_host(reinterpret_cast<const sockaddr*>(&own), own_length); !text.empty()) return text;
  }
  throw UsageError("no local address routes to master address '" + host + "' (" + last_error +
                   "); name the interface with --gloo-interface");
}

std::vector<std::string> interface_names() {
  std::vector<std::string> names;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return names;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6)) continue;
    if (std::find(names.begin(), names.end(), i->ifa_name) == names.end()) names.emplace_back(i->ifa_name);
  }
  ::freeifaddrs(list);
  return names;
}

std::string interface_address(const std::string& name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) throw RuntimeError(std::string("cannot list network interfaces: ") + std::strerror(errno));
  std::string v4, v6;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || name != i->ifa_name) continue;
    const int family = i->ifa_addr->sa_family;
    const socklen_t length = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (family == AF_INET && v4.empty()) v4 = numeric_host(i->ifa_addr, length);
    if (family == AF_INET6 && v6.empty()) v6 = numeric_host(i->ifa_addr, length);
  }
  ::freeifaddrs(list);
  if (!v4.empty()) return v4;
  if (!v6.empty()) return v6;
  std::string known;
  for (const auto& n : interface_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("network interface '" + name + "' has no IPv4 or IPv6 address on this machine (interfaces: " +
                   (known.empty() ? "none" : known) + ")");
}

}  // namespace medsynth
