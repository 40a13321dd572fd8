#include "dist/dist_environment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"

namespace medsynth {
namespace {

int parse_int(const EnvLookup& env, const std::string& name, int fallback, int minimum) {
  const auto text = env(name);
  if (!text || text->empty()) return fallback;
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size() || value < minimum || value > std::numeric_limits<int>::max())
    throw UsageError("environment variable " + name + "='" + *text + "' is not an integer >= " + std::to_string(minimum));
  return static_cast<int>(value);
}

std::string require(const EnvLookup& env, const std::string& name, const std::string& why) {
  auto text = env(name);
  if (!text || text->empty()) throw UsageError("environment variable " + name + " is not set (" + why + ")");
  return *text;
}

void check_ranks(const DistEnvironment& d, const std::string& rank_var, const std::string& world_var) {
  if (d.rank >= d.world_size)
    throw UsageError(rank_var + "=" + std::to_string(d.rank) + " must be below " + world_var + "=" + std::to_string(d.world_size));
  if (d.local_rank >= d.local_world_size)
    throw UsageError("local rank " + std::to_string(d.local_rank) + " must be below the local world size " +
                     std::to_string(d.local_world_size));
}

}  // namespace

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::string first_slurm_host(const std::string& nodelist) {
  if (nodelist.empty()) throw UsageError("SLURM_NODELIST is empty");
  // The first entry ends at a comma outside brackets.
  std::string entry;
  int depth = 0;
  for (char ch : nodelist) {
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth == 0) break;
    entry += ch;
  }
  const auto open = entry.find('[');
  if (open == std::string::npos) return entry;
  const auto close = entry.find(']', open);
  if (close == std::string::npos || open == 0) throw UsageError("SLURM_NODELIST '" + nodelist + "' is malformed");
  std::string range = entry.substr(open + 1, close - open - 1);
  range = range.substr(0, range.find(','));       // first range of the bracket
  const std::string first = range.substr(0, range.find('-'));  // first number, zero padding kept
  if (first.empty() || !std::all_of(first.begin(), first.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw UsageError("SLURM_NODELIST '" + nodelist + "' is malformed");
  return entry.substr(0, open) + first + entry.substr(close + 1);
}

int slurm_default_port(const std::string& job_id) {
  unsigned long id = 0;
  for (char c : job_id)
    if (std::isdigit(static_cast<unsigned char>(c))) id = id * 10 + static_cast<unsigned long>(c - '0');
  return 20000 + static_cast<int>(id % 10000);
}

DistEnvironment read_dist_environment(const EnvLookup& env) {
  DistEnvironment d;
  if (env("RANK") && env("WORLD_SIZE")) {
    d.source = "torchrun";
    d.world_size = parse_int(env, "WORLD_SIZE", 1, 1);
    d.rank = parse_int(env, "RANK", 0, 0);
    d.local_rank = parse_int(env, "LOCAL_RANK", d.rank, 0);
    d.local_world_size = parse_int(env, "LOCAL_WORLD_SIZE", d.world_size, 1);
    d.node_rank = parse_int(env, "GROUP_RANK", 0, 0);
    d.restart_count = parse_int(env, "TORCHELASTIC_RESTART_COUNT", 0, 0);
    check_ranks(d, "RANK", "WORLD_SIZE");
    if (d.world_size > 1) {
      d.master_addr = require(env, "MASTER_ADDR", "torchrun-style environment with WORLD_SIZE > 1");
      d.master_port = parse_int(env, "MASTER_PORT", -1, 1);
      if (d.master_port < 1 || d.master_port > 65535)
        throw UsageError("environment variable MASTER_PORT must be set to a port in 1..65535 when WORLD_SIZE > 1");
    }
    d.store_hosted_by_agent = env("MEDSYNTH_AGENT_STORE").value_or("") == "1";
    return d;
  }
  const int ntasks = parse_int(env, "SLURM_NTASKS", 1, 1);
  if (ntasks > 1 && env("SLURM_PROCID")) {
    d.source = "slurm";
    d.world_size = ntasks;
    d.rank = parse_int(env, "SLURM_PROCID", 0, 0);
    d.local_rank = parse_int(env, "SLURM_LOCALID", 0, 0);
    const int nnodes = parse_int(env, "SLURM_NNODES", 1, 1);
    d.local_world_size = (ntasks + nnodes - 1) / nnodes;
    if (auto per_node = env("SLURM_NTASKS_PER_NODE"); per_node && !per_node->empty() && std::isdigit(static_cast<unsigned char>((*per_node)[0])))
      d.local_world_size = std::max(1, std::atoi(per_node->c_str()));
    d.local_world_size = std::max(d.local_world_size, d.local_rank + 1);
    d.node_rank = parse_int(env, "SLURM_NODEID", 0, 0);
    d.restart_count = parse_int(env, "SLURM_RESTART_COUNT", 0, 0);
    check_ranks(d, "SLURM_PROCID", "SLURM_NTASKS");
    if (auto addr = env("MASTER_ADDR"); addr && !addr->empty())
      d.master_addr = *addr;
    else
      d.master_addr = first_slurm_host(require(env, "SLURM_NODELIST", "needed to find the master node under SLURM"));
    d.master_port = parse_int(env, "MASTER_PORT", 0, 1);
    if (d.master_port == 0) d.master_port = slurm_default_port(env("SLURM_JOB_ID").value_or("0"));
    if (d.master_port > 65535) throw UsageError("environment variable MASTER_PORT must be a port in 1..65535");
    return d;
  }
  return d;
}

}  // namespace medsynth
