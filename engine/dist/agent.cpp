#include "dist/agent.hpp"

#include <poll.h>
#include <signal.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "core/error.hpp"
#include "contract/run_directory.hpp"
#include "dist/listen_socket.hpp"
#include "dist/local_address.hpp"
#include "dist/worker_process.hpp"
#include "events/event_writer.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds millis(double seconds) { return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0)); }

void write_line(int fd, const std::string& line) {
  std::string bytes = line + "\n";
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

void agent_log(const std::string& message) { write_line(STDERR_FILENO, "medsynth-engine launch: " + message); }

struct Failure {
  int rank = -1;
  int exit_code = 0;
  std::string status;
  std::vector<std::string> tail;
};

enum class AttemptOutcome { succeeded, failed, stopped };

struct AttemptResult {
  AttemptOutcome outcome = AttemptOutcome::succeeded;
  Failure first;         // the rank to blame
  std::string others;    // what the other ranks did
  int stop_signal = 0;
};

class Agent {
 public:
  explicit Agent(const AgentOptions& o) : o_(o) {}

  int run() {
    open_store();
    share_run();
    if (o_.node_rank == 0)
      events_ = std::make_unique<EventWriter>(EventWriterOptions{.path = run_dir_ + "/events.jsonl", .rank = -1, .echo_stdout = o_.json_stdout});
    agent_log("run directory " + run_dir_ + "; rendezvous " + o_.master_addr + ":" + std::to_string(port_) + "; " +
              std::to_string(o_.nproc_per_node) + " worker(s) on node " + std::to_string(o_.node_rank) + " of " + std::to_string(o_.nnodes));
    for (int attempt = 0;; ++attempt) {
      AttemptResult r = run_attempt(attempt);
      if (r.outcome == AttemptOutcome::succeeded) return 0;
      if (r.outcome == AttemptOutcome::stopped) {
        agent_log("stopped by signal " + std::to_string(r.stop_signal) + "; workers saved their checkpoint and exited");
        return r.stop_signal == SIGINT ? 130 : 143;
      }
      const std::string reason = "rank " + std::to_string(r.first.rank) + " " + r.first.status;
      // Usage, data and storage errors would fail again the same way.
      const bool deterministic = r.first.exit_code == 2 || r.first.exit_code == 3 || r.first.exit_code == 4;
      if (attempt < o_.max_restarts && !deterministic) {
        agent_log(reason + "; restarting all workers from the last checkpoint (restart " + std::to_string(attempt + 1) + " of " +
                  std::to_string(o_.max_restarts) + ")");
        if (events_) events_->restart(attempt + 1, reason);
        continue;
      }
      report_failure(r, attempt, deterministic);
      return deterministic ? r.first.exit_code : 1;
    }
  }

 private:
  void open_store() {
    c10d::TCPStoreOptions so;
    so.timeout = millis(o_.join_timeout_s);
    so.waitWorkers = false;
    if (o_.node_rank == 0) {
      ListenSocket socket(o_.master_addr, o_.master_port);  // UsageError for a busy port: never merge two jobs
      port_ = socket.port();
      so.port = static_cast<std::uint16_t>(port_);
      so.isServer = true;
      so.masterListenFd = socket.fd();
      store_ = c10::make_intrusive<c10d::TCPStore>(o_.master_addr, so);
      socket.release();
    } else {
      port_ = o_.master_port;
      so.port = static_cast<std::uint16_t>(port_);
      try {
        store_ = c10::make_intrusive<c10d::TCPStore>(o_.master_addr, so);
      } catch (const std::exception& e) {
        throw RuntimeError("node " + std::to_string(o_.node_rank) + " cannot reach the rendezvous store of node 0 at " + o_.master_addr +
                           ":" + std::to_string(port_) + " within " + std::to_string(o_.join_timeout_s) + " s: " + e.what());
      }
    }
  }

  void share_run() {
    if (o_.node_rank == 0) {
      store_->set("agent/identity", o_.identity);
      auto [dir, resume] = o_.resolve_run();
      run_dir_ = dir;
      resume_from_ = resume;
      store_->set("agent/run_dir", run_dir_);
      store_->set("agent/resume_from", resume_from_);
      return;
    }
    auto get = [&](const std::string& key) {
      auto bytes = store_->get(key);
      return std::string(bytes.begin(), bytes.end());
    };
    if (const std::string theirs = get("agent/identity"); theirs != o_.identity)
      throw UsageError("node " + std::to_string(o_.node_rank) + ": the rendezvous store at " + o_.master_addr + ":" + std::to_string(port_) +
                       " belongs to another run (" + theirs + "); this node's is (" + o_.identity +
                       "): give each job its own --master-port");
    run_dir_ = get("agent/run_dir");
    resume_from_ = get("agent/resume_from");
  }

  std::vector<std::unique_ptr<WorkerProcess>> spawn(int attempt) {
    const int world = o_.nproc_per_node * o_.nnodes;
    std::string resume = resume_from_;
    const std::string last = RunDirectory{run_dir_}.last_checkpoint();
    if (attempt > 0 && fs::exists(last)) resume = last;  // restart from what the failed attempt saved
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::unique_ptr<WorkerProcess>> workers;
    for (int local = 0; local < o_.nproc_per_node; ++local) {
      WorkerSpec spec;
      spec.program = o_.program;
      spec.rank = o_.node_rank * o_.nproc_per_node + local;
      spec.args = o_.worker_args;
      if (o_.train_workers) {
        spec.args.insert(spec.args.end(), {"--run-dir", run_dir_});
        if (!resume.empty()) spec.args.insert(spec.args.end(), {"--resume", resume});
        if (spec.rank != 0) spec.args.push_back("--no-progress");
      }
      spec.env = {{"RANK", std::to_string(spec.rank)},
                  {"LOCAL_RANK", std::to_string(local)},
                  {"WORLD_SIZE", std::to_string(world)},
                  {"LOCAL_WORLD_SIZE", std::to_string(o_.nproc_per_node)},
                  {"GROUP_RANK", std::to_string(o_.node_rank)},
                  {"MASTER_ADDR", o_.master_addr},
                  {"MASTER_PORT", std::to_string(port_)},
                  {"TORCHELASTIC_RESTART_COUNT", std::to_string(attempt)},
                  {"MEDSYNTH_AGENT_STORE", "1"}};
      if (!o_.gloo_interface.empty()) spec.env["MEDSYNTH_GLOO_INTERFACE"] = o_.gloo_interface;
      // torchrun leaves OMP_NUM_THREADS=1; we share the cores instead so that
      // N CPU workers do not oversubscribe (the benchmark compares both).
      if (!std::getenv("OMP_NUM_THREADS"))
        spec.env["OMP_NUM_THREADS"] = std::to_string(std::max(1u, cores / static_cast<unsigned>(o_.nproc_per_node)));
      workers.push_back(std::make_unique<WorkerProcess>(std::move(spec)));
    }
    return workers;
  }

  void pump(std::vector<std::unique_ptr<WorkerProcess>>& workers, double timeout_s) {
    std::vector<pollfd> fds;
    for (auto& w : workers) {
      if (w->stdout_fd() >= 0) fds.push_back({w->stdout_fd(), POLLIN, 0});
      if (w->stderr_fd() >= 0) fds.push_back({w->stderr_fd(), POLLIN, 0});
    }
    if (fds.empty())
      std::this_thread::sleep_for(millis(timeout_s));
    else
      ::poll(fds.data(), fds.size(), static_cast<int>(timeout_s * 1000));
    const bool many = o_.nproc_per_node * o_.nnodes > 1;
    for (auto& w : workers) {
      const int rank = w->rank();
      w->read_output([&](const std::string& line) { if (rank == 0) write_line(STDOUT_FILENO, line); },
                     [&](const std::string& line) {
                       // Log lines carry their rank already; other output (a crash message) gets one.
                       const bool tagged = !many || line.find("[rank ") != std::string::npos;
                       write_line(STDERR_FILENO, tagged ? line : "[rank " + std::to_string(rank) + "] " + line);
                     });
    }
  }

  // Stops every worker: SIGCONT+SIGTERM (a stopped process cannot act on
  // SIGTERM), then SIGKILL after the grace period.
  void stop_all(std::vector<std::unique_ptr<WorkerProcess>>& workers, double grace_s) {
    for (auto& w : workers) {
      if (w->poll() == WorkerState::stopped) {
        w->send(SIGKILL);
        continue;
      }
      w->send(SIGTERM);
    }
    const auto deadline = Clock::now() + millis(grace_s);
    bool killed = false;
    for (;;) {
      bool all_exited = true;
      for (auto& w : workers)
        if (w->poll() != WorkerState::exited) all_exited = false;
      if (all_exited) break;
      if (!killed && Clock::now() >= deadline) {
        for (auto& w : workers) w->send(SIGKILL);
        killed = true;
      }
      pump(workers, o_.monitor_interval_s);
    }
    pump(workers, 0);
  }

  AttemptResult run_attempt(int attempt) {
    auto workers = spawn(attempt);
    AttemptResult result;
    bool stopping = false;
    for (;;) {
      pump(workers, o_.monitor_interval_s);
      const int signal = o_.stop_signal ? o_.stop_signal->load() : 0;
      if (signal != 0 && !stopping) {
        stopping = true;
        result.stop_signal = signal;
        agent_log("signal " + std::to_string(signal) + ": asking the workers to save a checkpoint and stop");
        for (auto& w : workers) w->send(SIGTERM);
      }
      int exited_ok = 0;
      WorkerProcess* failed = nullptr;
      WorkerProcess* stopped_by_peer = nullptr;
      for (auto& w : workers) {
        const WorkerState s = w->poll();
        if (s != WorkerState::exited) continue;
        if (w->exit_code() == 0)
          ++exited_ok;
        else if (!stopping && (w->exit_code() == 143 || w->exit_code() == 130))
          stopped_by_peer = w.get();
        else if (!failed)
          failed = w.get();
      }
      // A worker that left with the stop code while this node got no signal:
      // another node was stopped first, and all ranks agreed on the stop at
      // their per-step all-reduce (checkpoint written). The run is stopped,
      // not failed; the other workers here leave the same way.
      if (stopped_by_peer && !failed) {
        stopping = true;
        result.stop_signal = stopped_by_peer->exit_code() == 130 ? SIGINT : SIGTERM;
        agent_log("rank " + std::to_string(stopped_by_peer->rank()) + " stopped with the ranks of another node; waiting for the others here");
        continue;
      }
      if (stopping) {
        bool all_exited = true;
        for (auto& w : workers) all_exited = all_exited && w->state() == WorkerState::exited;
        if (all_exited) {
          pump(workers, 0);
          result.outcome = exited_ok == static_cast<int>(workers.size()) ? AttemptOutcome::succeeded : AttemptOutcome::stopped;
          return result;
        }
        continue;
      }
      if (failed) {
        result.outcome = AttemptOutcome::failed;
        // A rank found stopped is the cause; the ranks that failed on a
        // collective timeout because of it are the effect.
        WorkerProcess* blame = failed;
        for (auto& w : workers)
          if (w->was_stopped() && w->state() != WorkerState::exited) blame = w.get();
        result.first = {blame->rank(), blame->exit_code(), describe_worker_status(*blame), {}};
        if (blame != failed) result.others = "rank " + std::to_string(failed->rank()) + " then failed: " + describe_worker_status(*failed);
        stop_all(workers, o_.stop_grace_s);
        result.first.tail = blame->last_stderr_lines();
        if (blame != failed) {
          auto t = failed->last_stderr_lines();
          if (!t.empty()) result.others += "; its last line: " + t.back();
        }
        return result;
      }
      if (exited_ok == static_cast<int>(workers.size())) {
        pump(workers, 0);
        return result;
      }
    }
  }

  void report_failure(const AttemptResult& r, int attempt, bool deterministic) {
    std::string message = "rank " + std::to_string(r.first.rank) + " (node " + std::to_string(o_.node_rank) + ") failed first: " + r.first.status;
    if (!r.others.empty()) message += "; " + r.others;
    message += deterministic ? " (a usage, data or storage error: not restarted)"
                             : "; " + std::to_string(attempt) + " restart(s) of " + std::to_string(o_.max_restarts) + " used";
    std::string tail;
    for (const auto& line : r.first.tail) tail += "\n    " + line;
    agent_log("FAILED: " + message + (tail.empty() ? "" : "\n  last log lines of rank " + std::to_string(r.first.rank) + ":" + tail));
    if (events_) {
      const char* kind = !deterministic ? "runtime" : r.first.exit_code == 3 ? "data" : r.first.exit_code == 4 ? "storage" : "usage";
      EventFields f{{"error", std::string(kind)},
                    {"message", message},
                    {"exit_code", deterministic ? r.first.exit_code : 1},
                    {"failed_rank", r.first.rank},
                    {"failed_exit_code", r.first.exit_code},
                    {"attempts", attempt + 1},
                    {"log_tail", r.first.tail}};
      events_->emit(event_schema::run_failed, f);
    }
  }

  const AgentOptions& o_;
  c10::intrusive_ptr<c10d::Store> store_;
  int port_ = 0;
  std::string run_dir_;
  std::string resume_from_;
  std::unique_ptr<EventWriter> events_;
};

}  // namespace

void AgentOptions::validate() const {
  if (nproc_per_node < 1) throw UsageError("--nproc-per-node must be >= 1 (got " + std::to_string(nproc_per_node) + ")");
  if (nnodes < 1) throw UsageError("--nnodes must be >= 1 (got " + std::to_string(nnodes) + ")");
  if (node_rank < 0 || node_rank >= nnodes)
    throw UsageError("--node-rank must be in [0, --nnodes) (got " + std::to_string(node_rank) + " of " + std::to_string(nnodes) + ")");
  if (master_port < 0 || master_port > 65535) throw UsageError("--master-port must be in 0..65535 (got " + std::to_string(master_port) + ")");
  if (nnodes > 1 && master_port == 0) throw UsageError("--master-port is required with --nnodes > 1 (every node must know it)");
  if (max_restarts < 0) throw UsageError("--max-restarts must be >= 0");
  if (!(monitor_interval_s > 0)) throw UsageError("--monitor-interval must be > 0");
  if (!gloo_interface.empty()) {
    try {
      interface_address(gloo_interface);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--gloo-interface: ") + e.what());
    }
  }
  if (program.empty()) throw UsageError("launcher: no worker program");
  if (node_rank == 0 && !resolve_run) throw UsageError("launcher: node 0 needs a run resolver");
}

int run_agent(const AgentOptions& options) {
  options.validate();
  Agent agent(options);
  return agent.run();
}

}  // namespace medsynth
