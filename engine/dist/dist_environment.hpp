// Who this process is in a distributed run, read from the environment the way
// torchrun and srun describe it. Called by the train verb before the trainer
// starts; the launcher (agent.hpp) writes the torchrun variables for its
// workers. No LibTorch here: unit-testable and cheap.
//
// Precedence: torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
// MASTER_PORT) when RANK and WORLD_SIZE are set; else SLURM's (SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID, SLURM_NODELIST -> master address = first host)
// when SLURM_NTASKS > 1; else a single process.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace medsynth {

struct DistEnvironment {
  int rank = 0;
  int local_rank = 0;            // picks the GPU: cuda:local_rank, never the global rank
  int world_size = 1;
  int local_world_size = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  int restart_count = 0;         // TORCHELASTIC_RESTART_COUNT / SLURM_RESTART_COUNT: store keys are per attempt
  bool store_hosted_by_agent = false;  // MEDSYNTH_AGENT_STORE=1: the launcher runs the store; rank 0 is a client
  std::string source = "single"; // single | torchrun | slurm

  bool distributed() const { return world_size > 1; }
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
EnvLookup process_environment();

// Throws UsageError naming the variable for a malformed or inconsistent value
// (RANK=abc, RANK >= WORLD_SIZE, a missing MASTER_ADDR, ...).
DistEnvironment read_dist_environment(const EnvLookup& env);

// The first host of a SLURM node list: "gpu[03-05,7],cpu1" -> "gpu03",
// "node1,node2" -> "node1". UsageError for an empty or malformed list.
std::string first_slurm_host(const std::string& nodelist);

// The rendezvous port under SLURM when MASTER_PORT is not set: derived from the
// job id so that concurrent jobs on shared nodes differ (as many SLURM scripts do).
int slurm_default_port(const std::string& job_id);

}  // namespace medsynth
