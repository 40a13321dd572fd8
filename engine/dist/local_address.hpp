// Which local address peer traffic should use. Gloo binds one address per
// rank; given a host name it resolves it, and Debian's default hosts entry
// maps the name to 127.0.1.1 (or 127.0.0.1): peers on other nodes then cannot
// connect, and on a machine with several networks the socket may land on a
// public one. We pick the address ourselves. No LibTorch here.
#pragma once

#include <string>
#include <vector>

namespace medsynth {

// The local address the kernel would send from to reach `host` (a name or a
// numeric IPv4/IPv6 address): a UDP socket is connected, which sends nothing,
// and its own address is read back. Throws UsageError naming the host when it
// does not resolve or no route leads to it.
std::string local_address_routing_to(const std::string& host);

// The address of network interface `name` (IPv4 preferred, then IPv6).
// Throws UsageError naming the interface and listing the ones that exist.
std::string interface_address(const std::string& name);

// Names of the interfaces that hold an IPv4 or IPv6 address, without repeats.
std::vector<std::string> interface_names();

}  // namespace medsynth
