// `medsynth-engine launch`: our torchrun. One agent per node spawns a worker
// per local device, hosts (node 0) or joins the rendezvous store, relays rank
// 0's event stream, and watches the workers: when one dies (or is found
// stopped), all local workers are stopped at once and, while restarts remain,
// started again from the run's last checkpoint (torchrun's elastic
// semantics); otherwise it fails with a report naming the first failing rank,
// its exit code and its last log lines. Called by cli/verb_launch.cpp.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace medsynth {

struct AgentOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;             // 0: a free port (single node only)
  int max_restarts = 0;
  double monitor_interval_s = 0.1; // torchrun's default
  double stop_grace_s = 15.0;      // SIGTERM, then SIGKILL after this
  double join_timeout_s = 300.0;   // other nodes' agents must reach the store within this
  // Network interface whose address the workers' Gloo sockets bind (passed on
  // as MEDSYNTH_GLOO_INTERFACE); empty: the address that routes to master_addr.
  std::string gloo_interface;
  bool json_stdout = false;        // relay rank 0's events (and ours) on stdout
  // What every node of one run agrees on (the job's config hash, the world's
  // shape, the console's launch id). Node 0 publishes it in its store; a node
  // whose identity differs is another job's and exits 2 before it touches the
  // run: two jobs given the same --master-port must never merge.
  std::string identity;
  std::string program;             // the engine executable the workers run
  std::vector<std::string> worker_args;  // "train", job, overrides, options (without --run-dir / --resume)
  // Train workers get --run-dir, --resume and (rank > 0) --no-progress from
  // the agent; generate workers take their run directory in worker_args.
  bool train_workers = true;
  // Node 0: decides the run directory and the checkpoint to start from (may create the directory).
  std::function<std::pair<std::string, std::string>()> resolve_run;
  const std::atomic<int>* stop_signal = nullptr;  // SIGINT/SIGTERM to the agent: stop the workers gracefully

  void validate() const;  // UsageError naming the option
};

// Returns the process exit code: 0 when every worker finished, 130/143 when
// stopped by a signal, the failing worker's code for usage/data errors (2/3,
// never restarted: they would fail again), 1 otherwise.
int run_agent(const AgentOptions& options);

}  // namespace medsynth
