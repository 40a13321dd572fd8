// `medsynth-engine launch [--nproc-per-node N --nnodes M --node-rank R
// --master-addr A --master-port P --max-restarts K] train JOB [overrides]
// [train options]`: torchrun's option names, our agent (dist/agent.hpp).
// `launch ... generate RUN [generate options]` samples on every worker.
#include <CLI/CLI.hpp>
#include <torch/cuda.h>

#include <unistd.h>

#include <climits>
#include <filesystem>
#include <thread>

#include "cli/signals.hpp"
#include "config/job_loader.hpp"
#include "cli/train_arguments.hpp"
#include "cli/self_executable.hpp"
#include "cli/verbs.hpp"
#include "core/error.hpp"
#include "cli/generate_arguments.hpp"
#include "dist/agent.hpp"

namespace fs = std::filesystem;

namespace medsynth::cli {
namespace {

struct LaunchArguments {
  AgentOptions agent;
  std::string nproc = "1";
  std::string rendezvous_id;
  TrainArguments train;
  GenerateArguments generate;
};

// --nproc-per-node: a number, "gpu" (one per CUDA device) or "cpu"/"auto"
// (torchrun's words: one per device; on CPU "auto" means one process).
int resolve_nproc(const std::string& text) {
  // Asked only for the device words: the launcher itself stays off the GPU otherwise.
  const auto cuda_devices = [] { return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0; };
  if (text == "gpu") {
    if (cuda_devices() < 1) throw UsageError("--nproc-per-node gpu: this node has no CUDA device");
    return cuda_devices();
  }
  if (text == "auto") return std::max(cuda_devices(), 1);
  if (text == "cpu") return 1;
  try {
    std::size_t used = 0;
    const int n = std::stoi(text, &used);
    if (used == text.size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  throw UsageError("--nproc-per-node must be a number >= 1, 'gpu', 'cpu' or 'auto' (got '" + text + "')");
}

int run_launch(AgentOptions& o) {
  install_stop_handlers();
  o.stop_signal = &stop_flag();
  const int code = run_agent(o);
  if (code == 130 || code == 143) throw Interrupted("launch stopped by signal");
  return code;
}

}  // namespace

Action add_launch_verb(CLI::App& app) {
  auto args = std::make_shared<LaunchArguments>();
  auto* cmd = app.add_subcommand("launch", "Run a job on several processes (our torchrun): one worker per GPU, or N on CPU with Gloo");
  AgentOptions& a = args->agent;
  cmd->add_option("--nproc-per-node", args->nproc, "Workers on this node: a number, 'gpu' (one per CUDA device), 'auto'")->capture_default_str();
  cmd->add_option("--nnodes", a.nnodes, "Number of nodes (one launcher per node)")->capture_default_str();
  cmd->add_option("--node-rank", a.node_rank, "This node's rank (0 hosts the rendezvous store)")->capture_default_str();
  cmd->add_option("--master-addr", a.master_addr, "Address of node 0; its store listens on this address only")->capture_default_str();
  cmd->add_option("--master-port", a.master_port, "Rendezvous port (0 or absent: a free port, single node only)");
  cmd->add_option("--max-restarts", a.max_restarts, "Restart all workers from the last checkpoint up to this many times")->capture_default_str();
  cmd->add_option("--monitor-interval", a.monitor_interval_s, "Seconds between worker health checks")->capture_default_str();
  cmd->add_option("--stop-grace", a.stop_grace_s, "Seconds between SIGTERM and SIGKILL when stopping workers")->capture_default_str();
  cmd->add_option("--join-timeout", a.join_timeout_s, "Seconds for other nodes' launchers to reach the store")->capture_default_str();
  cmd->add_option("--gloo-interface", a.gloo_interface,
                  "Network interface for the workers' Gloo traffic (default: the one that routes to --master-addr)");
  cmd->add_option("--rendezvous-id", args->rendezvous_id,
                  "The same on every node of one launch (the console gives its launch id): a node of another launch is refused");
  cmd->require_subcommand(1);
  auto* train = cmd->add_subcommand("train", "The training job every worker runs (same options as `medsynth-engine train`)");
  add_train_options(*train, args->train);
  auto* generate = cmd->add_subcommand("generate", "Sample from a task: ldm run on every worker (same options as `medsynth-engine generate`)");
  add_generate_options(*generate, args->generate);
  generate->get_option("run_dir")->check(CLI::ExistingDirectory);  // the launcher resolves it before any worker
  return [args, generate] {
    AgentOptions o = args->agent;
    o.nproc_per_node = resolve_nproc(args->nproc);
    o.program = self_executable();
    if (generate->parsed()) {
      const GenerateArguments g = args->generate;
      o.worker_args = worker_generate_argv(g);
      o.json_stdout = g.json;
      o.train_workers = false;
      o.identity = "generate " + fs::absolute(g.run_dir).string() + ", " + std::to_string(o.nnodes) + " node(s) x " +
                   std::to_string(o.nproc_per_node) + " worker(s)" + (args->rendezvous_id.empty() ? "" : ", launch " + args->rendezvous_id);
      o.resolve_run = [g] { return std::make_pair(g.run_dir, std::string()); };
      return run_launch(o);
    }
    o.json_stdout = args->train.json;
    o.worker_args = worker_train_argv(args->train);
    const TrainArguments train = args->train;
    // The nodes' job files are copies at different paths: the resolved job's
    // hash is what they share.
    o.identity = "job " + job_config_hash(load_train_job(train)) + ", " + std::to_string(o.nnodes) + " node(s) x " +
                 std::to_string(o.nproc_per_node) + " worker(s)" + (args->rendezvous_id.empty() ? "" : ", launch " + args->rendezvous_id);
    o.resolve_run = [train] {
      const JobSpec job = load_train_job(train);
      ResolvedRun r = resolve_run(train, job);
      return std::make_pair(r.run.root, r.resume_from);
    };
    return run_launch(o);
  };
}

}  // namespace medsynth::cli
