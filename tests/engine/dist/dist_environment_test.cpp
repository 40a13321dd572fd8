// Rank/world parsed from torchrun's and SLURM's environments (RELIABILITY
// "distributed"; issue test g), and the rendezvous socket's binding rules.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <map>

#include "core/error.hpp"
#include "dist/dist_environment.hpp"
#include "dist/listen_socket.hpp"
#include "dist/local_address.hpp"
#include "dist/process_group.hpp"

using namespace medsynth;

namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// An IPv4 address of this machine that is not loopback, with its interface
// (empty when the machine has none).
std::pair<std::string, std::string> non_loopback_ipv4() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::pair<std::string, std::string> found;
  for (const ifaddrs* i = list; i != nullptr && found.first.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[64] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof(text));
    if (std::string(text).rfind("127.", 0) != 0) found = {text, i->ifa_name};
  }
  ::freeifaddrs(list);
  return found;
}

std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no usage error";
}

}  // namespace

TEST(DistEnvironment, NoVariablesMeansOneProcess) {
  const auto d = read_dist_environment(env_of({}));
  EXPECT_FALSE(d.distributed());
  EXPECT_EQ(d.world_size, 1);
  EXPECT_EQ(d.source, "single");
}

TEST(DistEnvironment, TorchrunVariables) {
  const auto d = read_dist_environment(env_of({{"RANK", "5"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"},
                                               {"GROUP_RANK", "1"}, {"MASTER_ADDR", "10.0.0.7"}, {"MASTER_PORT", "29500"},
                                               {"TORCHELASTIC_RESTART_COUNT", "2"}}));
  EXPECT_EQ(d.source, "torchrun");
  EXPECT_EQ(d.rank, 5);
  EXPECT_EQ(d.local_rank, 1);  // the GPU index on its node, not the global rank
  EXPECT_EQ(d.world_size, 8);
  EXPECT_EQ(d.local_world_size, 4);
  EXPECT_EQ(d.node_rank, 1);
  EXPECT_EQ(d.master_addr, "10.0.0.7");
  EXPECT_EQ(d.master_port, 29500);
  EXPECT_EQ(d.restart_count, 2);
  EXPECT_FALSE(d.store_hosted_by_agent);
}

TEST(DistEnvironment, TorchrunErrorsNameTheVariable) {
  auto message = [](std::map<std::string, std::string> vars) {
    try {
      read_dist_environment(env_of(std::move(vars)));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"RANK", "abc"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}).find("RANK='abc'"), std::string::npos);
  EXPECT_NE(message({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}).find("must be below WORLD_SIZE"),
            std::string::npos);
  EXPECT_NE(message({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}).find("MASTER_ADDR"), std::string::npos);
  EXPECT_NE(message({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}}).find("MASTER_PORT"), std::string::npos);
  EXPECT_NE(message({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "70000"}}).find("MASTER_PORT"),
            std::string::npos);
}

TEST(DistEnvironment, SlurmVariablesGiveRankAndMasterFromTheNodeList) {
  const auto d = read_dist_environment(env_of({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"}, {"SLURM_NNODES", "2"},
                                               {"SLURM_NODEID", "1"}, {"SLURM_NODELIST", "gpu[07-08]"}, {"SLURM_JOB_ID", "123456"}}));
  EXPECT_EQ(d.source, "slurm");
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.world_size, 4);
  EXPECT_EQ(d.local_rank, 1);
  EXPECT_EQ(d.local_world_size, 2);
  EXPECT_EQ(d.node_rank, 1);
  EXPECT_EQ(d.master_addr, "gpu07");
  EXPECT_EQ(d.master_port, slurm_default_port("123456"));
  EXPECT_NE(slurm_default_port("123456"), slurm_default_port("123457"));
}

TEST(DistEnvironment, SlurmSingleTaskIsOneProcessAndTorchrunWins) {
  EXPECT_FALSE(read_dist_environment(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}})).distributed());
  const auto d = read_dist_environment(env_of({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_NODELIST", "n1"}, {"RANK", "0"},
                                               {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "2000"}}));
  EXPECT_EQ(d.source, "torchrun");
  EXPECT_EQ(d.world_size, 2);
}

TEST(DistEnvironment, FirstSlurmHost) {
  EXPECT_EQ(first_slurm_host("node1"), "node1");
  EXPECT_EQ(first_slurm_host("node1,node2"), "node1");
  EXPECT_EQ(first_slurm_host("gpu[03-05,7],cpu1"), "gpu03");
  EXPECT_EQ(first_slurm_host("a[1,4]b"), "a1b");
  EXPECT_EQ(first_slurm_host("rack[002-010]"), "rack002");
  EXPECT_THROW(first_slurm_host(""), UsageError);
  EXPECT_THROW(first_slurm_host("gpu[x-y]"), UsageError);
}

TEST(ListenSocket, PicksAFreePortAndRefusesABusyOne) {
  ListenSocket first("127.0.0.1", 0);
  ASSERT_GT(first.port(), 0);
  EXPECT_FALSE(port_is_free("127.0.0.1", first.port()));
  try {
    ListenSocket second("127.0.0.1", first.port());
    FAIL() << "a second listener on a busy port was allowed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(first.port())), std::string::npos) << e.what();
  }
}

TEST(ListenSocket, AnAddressOfAnotherMachineIsAClearError) {
  try {
    ListenSocket s("192.0.2.1", 0);  // TEST-NET-1: never an address of this machine
    FAIL() << "bound to a foreign address";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("192.0.2.1"), std::string::npos) << e.what();
  }
}

// Issue 19.7: Gloo was given the host name, which Debian's hosts file maps to
// 127.0.1.1 (here 127.0.0.1): other nodes could not reach it, and on several
// networks it may bind a public one. It now binds the address that routes to
// the master (before the fix: the host name came back).
TEST(GlooAddress, ANonLoopbackMasterMeansTheLocalAddressThatRoutesToIt) {
  const auto [address, interface] = non_loopback_ipv4();
  if (address.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  DistEnvironment env;
  env.master_addr = address;
  EXPECT_EQ(gloo_interface_address(env, env_of({})), address);
  EXPECT_EQ(local_address_routing_to(address), address);
}

TEST(GlooAddress, ALoopbackMasterMeansLoopback) {
  DistEnvironment env;
  env.master_addr = "localhost";
  EXPECT_EQ(gloo_interface_address(env, env_of({})), "127.0.0.1");
  EXPECT_EQ(local_address_routing_to("127.0.0.1"), "127.0.0.1");
}

TEST(GlooAddress, AnInterfaceNamedByTheLauncherOrByGlooSocketIfnameWins) {
  DistEnvironment env;
  env.master_addr = "192.0.2.77";  // TEST-NET-1: never this machine
  EXPECT_EQ(gloo_interface_address(env, env_of({{"MEDSYNTH_GLOO_INTERFACE", "lo"}})), "127.0.0.1");
  EXPECT_EQ(gloo_interface_address(env, env_of({{"GLOO_SOCKET_IFNAME", "lo,eth9"}})), "127.0.0.1");
  EXPECT_EQ(gloo_interface_address(env, env_of({{"MEDSYNTH_GLOO_ADDRESS", "10.1.2.3"}, {"MEDSYNTH_GLOO_INTERFACE", "lo"}})), "10.1.2.3");
}

TEST(GlooAddress, AnUnknownInterfaceOrAnUnresolvableMasterIsAUsageErrorNamingIt) {
  const std::string unknown = usage_error_of([] { interface_address("nosuchif0"); });
  EXPECT_NE(unknown.find("'nosuchif0'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("lo"), std::string::npos) << "lists the interfaces that exist: " << unknown;
  DistEnvironment env;
  env.master_addr = "no-such-host.invalid";
  const std::string unresolved = usage_error_of([&] { gloo_interface_address(env, env_of({})); });
  EXPECT_NE(unresolved.find("'no-such-host.invalid'"), std::string::npos) << unresolved;
}
