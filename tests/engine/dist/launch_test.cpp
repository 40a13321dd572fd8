// `medsynth-engine launch` end to end: real engine processes, Gloo over
// 127.0.0.1, real signals (issue tests a-g; RELIABILITY.md 1-7).
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dist/listen_socket.hpp"
#include "rank_processes.hpp"
#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "state/tensor_file.hpp"

namespace fs = std::filesystem;
using namespace medsynth;
using nlohmann::json;

namespace {

// Trains in seconds on one thread per process; fp32 without EMA, so that runs
// that see the same samples must end with the same weights. The learning rate
// is small on purpose: AdamW divides each coordinate by its own RMS, so a
// parameter whose true gradient is zero (a conv bias before GroupNorm) moves by
// +-lr on float rounding noise alone; the optimizer's first moment (linear in
// the gradients) is compared as well, which also catches a wrong scale.
const char* k_job = R"(name: dist
task: autoencoder
data:
  num_train: 8
  num_val: 2
  phantom_size: [24, 24, 24]
  phantom_spacing: [10.0, 10.0, 10.0]
  patch_size: [16, 16, 16]
  num_workers: 0
model:
  autoencoder:
    num_channels: [4, 8, 8]
    num_res_blocks: [1, 1, 1]
    norm_num_groups: 4
training:
  batch_size: 2
  max_steps: 5
  lr: 1.0e-6
  amp: false
  val_every_steps: 1000
  num_threads: 1
  per_sample_noise: true
distributed:
  timeout_s: 60
  join_timeout_s: 60
output:
  log_every_steps: 1
  tensorboard: false
  save_reconstructions: 0
)";

struct Fixture {
  test::TempDir dir;
  std::string job;
  std::string runs;
  Fixture() {
    job = (dir / "job.yaml").string();
    runs = (dir / "runs").string();
    test::write_bytes(job, k_job);
  }
};

std::vector<json> read_events(const std::string& run_dir) {
  std::vector<json> out;
  std::ifstream in(run_dir + "/events.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

std::vector<json> of_type(const std::vector<json>& events, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

std::string only_run(const std::string& runs) {
  std::vector<std::string> dirs;
  for (const auto& e : fs::directory_iterator(runs)) dirs.push_back(e.path().string());
  return dirs.size() == 1 ? dirs[0] : std::string();
}

std::map<std::string, at::Tensor> tensors_named(const std::string& run_dir, const std::string& prefix, const std::string& suffix = "") {
  std::map<std::string, at::Tensor> out;
  for (auto& [name, t] : read_tensor_file(run_dir + "/checkpoints/last.safetensors").tensors)
    if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out[name] = t;
  return out;
}

std::map<std::string, at::Tensor> model_weights(const std::string& run_dir) { return tensors_named(run_dir, "model."); }
// AdamW's first moments: a linear function of the (averaged) gradients.
std::map<std::string, at::Tensor> first_moments(const std::string& run_dir) { return tensors_named(run_dir, "optim.", ".exp_avg"); }


double max_difference(const std::map<std::string, at::Tensor>& a, const std::map<std::string, at::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (const auto& [name, t] : a) {
    auto it = b.find(name);
    if (it == b.end()) return 1e9;
    worst = std::max(worst, (t.to(at::kDouble) - it->second.to(at::kDouble)).abs().max().item<double>());
  }
  return worst;
}

// max |a - b| / max |b| over all tensors.
double relative_difference(const std::map<std::string, at::Tensor>& a, const std::map<std::string, at::Tensor>& b) {
  double scale = 0;
  for (const auto& [name, t] : b) scale = std::max(scale, t.abs().max().item<double>());
  return scale > 0 ? max_difference(a, b) / scale : 1e9;
}

std::vector<std::string> launch_argv(const Fixture& f, int nproc, std::vector<std::string> launch_options, std::vector<std::string> overrides) {
  std::vector<std::string> argv{test::engine_binary(), "launch", "--nproc-per-node", std::to_string(nproc)};
  argv.insert(argv.end(), launch_options.begin(), launch_options.end());
  argv.insert(argv.end(), {"train", f.job});
  argv.insert(argv.end(), overrides.begin(), overrides.end());
  argv.insert(argv.end(), {"--runs-dir", f.runs, "--no-progress"});
  return argv;
}

test::ProcessResult train_once(const Fixture& f, std::vector<std::string> overrides) {
  std::vector<std::string> argv{test::engine_binary(), "train", f.job};
  argv.insert(argv.end(), overrides.begin(), overrides.end());
  argv.insert(argv.end(), {"--runs-dir", f.runs, "--no-progress"});
  return test::run_process(argv, f.dir.path().string());
}

// The engine processes still alive whose command line mentions `needle`.
std::vector<pid_t> processes_mentioning(const std::string& needle) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), {});
    if (cmdline.find(needle) != std::string::npos && cmdline.find("launch_test") == std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

pid_t worker_of_rank(pid_t launcher, int rank) {
  std::ifstream in("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) + "/children");
  for (pid_t child; in >> child;) {
    std::ifstream env("/proc/" + std::to_string(child) + "/environ");
    std::string all((std::istreambuf_iterator<char>(env)), {});
    std::stringstream vars(all);
    for (std::string v; std::getline(vars, v, '\0');)
      if (v == "RANK=" + std::to_string(rank)) return child;
  }
  return -1;
}

bool has_checkpoint_at_least(const std::string& runs, int step) {
  if (!fs::exists(runs)) return false;
  const std::string run = only_run(runs);
  if (run.empty()) return false;
  for (const auto& e : of_type(read_events(run), "checkpoint"))
    if (e.value("step", 0) >= step) return true;
  return false;
}

}  // namespace

// (a) + the run_started contract: gradients are averaged right.
TEST(Launch, TwoRanksOfBatchBEqualOneRankOfBatch2B) {
  Fixture two, one;
  auto r2 = test::run_process(launch_argv(two, 2, {}, {}), two.dir.path().string());
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  auto r1 = train_once(one, {"training.batch_size=4"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const std::string run2 = only_run(two.runs);
  const auto started = of_type(read_events(run2), "run_started");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0]["world_size"], 2);
  EXPECT_EQ(started[0]["effective_batch"], 4);
  EXPECT_TRUE(fs::exists(run2 + "/logs/rank0.log"));
  EXPECT_TRUE(fs::exists(run2 + "/logs/rank1.log"));
  const std::string run1 = only_run(one.runs);
  EXPECT_LT(max_difference(model_weights(run2), model_weights(run1)), 1e-5) << "2 ranks x batch 2 must train like 1 rank x batch 4";
  EXPECT_LT(relative_difference(first_moments(run2), first_moments(run1)), 1e-3) << "the averaged gradients differ";
  // Not vacuous: one rank's gradients alone (batch 2, no averaging) are far off.
  Fixture half;
  auto rh = train_once(half, {"training.batch_size=2"});
  ASSERT_EQ(rh.exit_code, 0) << rh.err;
  EXPECT_GT(relative_difference(first_moments(only_run(half.runs)), first_moments(run1)), 1e-2);
}

// (b): accumulation over 2 micro-steps equals the doubled batch, in one rank and across two.
TEST(Launch, AccumulationEqualsTheDoubledBatch) {
  Fixture big, accum, dist_accum;
  ASSERT_EQ(train_once(big, {"training.batch_size=4"}).exit_code, 0);
  auto ra = train_once(accum, {"training.batch_size=2", "training.gradient_accumulation_steps=2"});
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  auto rd = test::run_process(launch_argv(dist_accum, 2, {}, {"training.batch_size=1", "training.gradient_accumulation_steps=2"}),
                              dist_accum.dir.path().string());
  ASSERT_EQ(rd.exit_code, 0) << rd.err;
  const auto reference = model_weights(only_run(big.runs));
  EXPECT_LT(max_difference(model_weights(only_run(accum.runs)), reference), 1e-5);
  EXPECT_LT(max_difference(model_weights(only_run(dist_accum.runs)), reference), 1e-5);
  const auto moments = first_moments(only_run(big.runs));
  EXPECT_LT(relative_difference(first_moments(only_run(accum.runs)), moments), 1e-3);
  EXPECT_LT(relative_difference(first_moments(only_run(dist_accum.runs)), moments), 1e-3);
  EXPECT_EQ(of_type(read_events(only_run(dist_accum.runs)), "run_started").at(0)["effective_batch"], 4);
}

// (c) + (f): SIGKILL of rank 1 with restarts allowed; the store is bound to 127.0.0.1 only.
TEST(Launch, KilledWorkerIsRestartedFromTheLastCheckpointAndTheRunCompletes) {
  Fixture f;
  const int port = test::free_port();
  test::ChildProcess launcher(launch_argv(f, 2, {"--max-restarts", "2", "--master-port", std::to_string(port)},
                                          {"training.max_steps=150", "training.val_every_steps=10"}),
                              f.dir.path().string());
  ASSERT_TRUE(test::wait_until([&] { return has_checkpoint_at_least(f.runs, 20); }, std::chrono::seconds(120)));
  const auto listeners = test::listeners_on(port);
  ASSERT_EQ(listeners.size(), 1u);
  EXPECT_EQ(listeners[0], "0100007F") << "the rendezvous store must listen on 127.0.0.1 only";
  const pid_t rank1 = worker_of_rank(launcher.pid(), 1);
  ASSERT_GT(rank1, 0);
  ::kill(rank1, SIGKILL);
  auto r = launcher.wait();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto events = read_events(only_run(f.runs));
  const auto restarts = of_type(events, "restart");
  ASSERT_EQ(restarts.size(), 1u);
  EXPECT_EQ(restarts[0]["attempt"], 1);
  EXPECT_NE(restarts[0]["reason"].get<std::string>().find("rank 1"), std::string::npos);
  EXPECT_EQ(of_type(events, "run_started").size(), 2u);
  const auto finished = of_type(events, "run_finished");
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0]["status"], "completed");
  int last_step = 0;
  for (const auto& e : of_type(events, "progress")) last_step = std::max(last_step, e.value("step", 0));
  EXPECT_EQ(last_step, 150);
  EXPECT_NE(test::read_bytes(only_run(f.runs) + "/logs/rank0.log").find("resumed from"), std::string::npos);
}

// RELIABILITY 2: failing every time exhausts the restarts; the report names
// the rank, its exit code and its last log lines; no worker is left.
TEST(Launch, RestartsExhaustedFailNamingTheRankWithNoWorkerLeft) {
  Fixture f;
  auto r = test::run_process(launch_argv(f, 2, {"--max-restarts", "2"}, {"training.max_steps=30", "--test-kill-self", "1:3"}),
                             f.dir.path().string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("rank 1 (node 0) failed first: killed by SIGKILL"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("last log lines of rank 1"), std::string::npos) << r.err;
  const auto events = read_events(only_run(f.runs));
  EXPECT_EQ(of_type(events, "restart").size(), 2u);
  const auto failed = of_type(events, "run_failed");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed.back()["failed_rank"], 1);
  EXPECT_EQ(failed.back()["failed_exit_code"], 137);
  EXPECT_EQ(failed.back()["attempts"], 3);
  EXPECT_TRUE(processes_mentioning(f.runs).empty()) << "a worker outlived its launcher";
}

// (d): a rank stopped inside the run; the others fail at the collective timeout.
TEST(Launch, StoppedRankMakesTheOthersFailAtTheTimeoutAndIsNamed) {
  Fixture f;
  test::ChildProcess launcher(launch_argv(f, 2, {}, {"training.max_steps=400", "training.val_every_steps=5", "distributed.timeout_s=3"}),
                              f.dir.path().string());
  ASSERT_TRUE(test::wait_until([&] { return has_checkpoint_at_least(f.runs, 5); }, std::chrono::seconds(120)));
  const pid_t rank1 = worker_of_rank(launcher.pid(), 1);
  ASSERT_GT(rank1, 0);
  ::kill(rank1, SIGSTOP);
  auto r = launcher.wait();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("rank 1 (node 0) failed first: stopped (SIGSTOP)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0 then failed"), std::string::npos) << r.err;
  EXPECT_TRUE(processes_mentioning(f.runs).empty()) << "a worker outlived its launcher";
  const auto ckpt = read_tensor_file(only_run(f.runs) + "/checkpoints/last.safetensors");
  EXPECT_FALSE(ckpt.tensors.empty());
}

// (e) RELIABILITY 6: a second job on a busy rendezvous port is refused.
TEST(Launch, BusyPortIsRefusedWithAClearError) {
  Fixture f;
  ListenSocket busy("127.0.0.1", 0);
  auto r = test::run_process(launch_argv(f, 2, {"--master-port", std::to_string(busy.port())}, {}), f.dir.path().string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already in use"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::to_string(busy.port())), std::string::npos) << r.err;
}

// (g) end to end: two `train` processes given a torchrun environment and no launcher.
TEST(Launch, TrainWorksUnderATorchrunEnvironmentWithoutTheLauncher) {
  Fixture f;
  const int port = test::free_port();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < 2; ++rank) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("RANK", std::to_string(rank).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      ::setenv("WORLD_SIZE", "2", 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      const std::string engine = test::engine_binary();
      const std::string log = (f.dir / ("rank" + std::to_string(rank) + ".err")).string();
      std::freopen(log.c_str(), "w", stderr);
      std::freopen("/dev/null", "w", stdout);
      ::execl(engine.c_str(), engine.c_str(), "train", f.job.c_str(), "--runs-dir", f.runs.c_str(), "--no-progress", nullptr);
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::read_bytes((f.dir / "rank0.err").string())
                                                              << test::read_bytes((f.dir / "rank1.err").string());
  }
  const std::string run = only_run(f.runs);
  ASSERT_FALSE(run.empty()) << "both ranks must share rank 0's run directory";
  EXPECT_EQ(of_type(read_events(run), "run_started").at(0)["world_size"], 2);
}

// Two launchers as two "nodes" on loopback: the multi-node path end to end.
// Two launchers of one process each, rendezvous at `master`; both must succeed.
static void train_on_two_nodes(const Fixture& f, const std::string& master) {
  const std::string port = std::to_string(test::free_port());
  auto node = [&](int rank) {
    return launch_argv(f, 1, {"--nnodes", "2", "--node-rank", std::to_string(rank), "--master-addr", master, "--master-port", port}, {});
  };
  test::ChildProcess node0(node(0), f.dir.path().string());
  test::ChildProcess node1(node(1), f.dir.path().string());
  auto r1 = node1.wait();
  auto r0 = node0.wait();
  ASSERT_EQ(r0.exit_code, 0) << r0.err;
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
}

TEST(Launch, TwoNodesOfOneProcessTrainTogether) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(train_on_two_nodes(f, "127.0.0.1"));
  const std::string run = only_run(f.runs);
  ASSERT_FALSE(run.empty()) << "both nodes must use node 0's run directory";
  EXPECT_EQ(of_type(read_events(run), "run_started").at(0)["world_size"], 2);
  EXPECT_TRUE(fs::exists(run + "/logs/rank1.log"));
}

// Issue 19.2: a node of another launch given the same --master-port joined
// the first job's store and adopted its run directory. Now the store carries
// the run's identity (job hash, world shape, launch id) and the intruder
// exits 2 before it touches the run; the real node then joins as usual.
TEST(Launch, ANodeOfAnotherLaunchIsRefusedAtTheRendezvous) {
  Fixture f;
  const std::string port = std::to_string(test::free_port());
  auto node = [&](int rank, const std::string& id) {
    return launch_argv(f, 1, {"--nnodes", "2", "--node-rank", std::to_string(rank), "--master-addr", "127.0.0.1", "--master-port", port,
                              "--rendezvous-id", id},
                       {});
  };
  test::ChildProcess node0(node(0, "launch-a"), f.dir.path().string());
  const auto intruder = test::run_process(node(1, "launch-b"), f.dir.path().string());
  EXPECT_EQ(intruder.exit_code, 2) << intruder.err;
  EXPECT_NE(intruder.err.find("belongs to another run"), std::string::npos) << intruder.err;
  EXPECT_NE(intruder.err.find(", launch launch-a)"), std::string::npos) << intruder.err;
  test::ChildProcess node1(node(1, "launch-a"), f.dir.path().string());
  auto r1 = node1.wait();
  auto r0 = node0.wait();
  ASSERT_EQ(r0.exit_code, 0) << r0.err;
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const std::string run = only_run(f.runs);
  ASSERT_FALSE(run.empty());
  for (const auto& e : fs::recursive_directory_iterator(run)) {
    if (!e.is_regular_file() || e.path().extension() == ".safetensors") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text.find("launch-b"), std::string::npos) << e.path() << " has a line of the intruder";
  }
}

// Issue 19.7: on a master address that is not loopback, each worker's Gloo
// sockets bind the local address that routes to it (its rank log says which);
// before, Gloo got the host name, which the hosts file maps to loopback.
TEST(Launch, TwoNodesOverANonLoopbackAddressBindGlooToIt) {
  const std::string address = test::run_process({"/bin/sh", "-c", "hostname -I | tr ' ' '\\n' | grep -m1 '\\.'"}, ".").out;
  const std::string master = address.substr(0, address.find('\n'));
  if (master.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address (hostname -I)";
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(train_on_two_nodes(f, master));
  const std::string run = only_run(f.runs);
  ASSERT_FALSE(run.empty());
  for (int rank : {0, 1}) {
    std::ifstream in(run + "/logs/rank" + std::to_string(rank) + ".log");
    const std::string log((std::istreambuf_iterator<char>(in)), {});
    EXPECT_NE(log.find(" of 2 (gloo on " + master + ")"), std::string::npos) << log;
  }
}

TEST(Launch, AnUnknownGlooInterfaceIsRefusedBeforeAnyWorkerStarts) {
  Fixture f;
  const auto r = test::run_process(launch_argv(f, 2, {"--gloo-interface", "nosuchif0"}, {}), f.dir.path().string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--gloo-interface: network interface 'nosuchif0'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(f.runs)) << "no run directory for a refused launch";
}

// Issue 19.6: a full disk (here a file-size limit, which fails a write the
// same way) failed the worker with exit 1, and the agent restarted it until
// its restarts were spent, each attempt meeting the same full disk.
TEST(Launch, AFullDiskIsAStorageErrorThatIsNotRestarted) {
  Fixture f;
  std::vector<std::string> argv{"/bin/sh", "-c", "ulimit -f 100 && exec \"$@\"", "sh"};
  for (const auto& a : launch_argv(f, 1, {"--max-restarts", "2"}, {})) argv.push_back(a);
  const auto r = test::run_process(argv, f.dir.path().string());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not restarted"), std::string::npos) << r.err;
  const std::string run = only_run(f.runs);
  ASSERT_FALSE(run.empty());
  const auto events = read_events(run);
  EXPECT_TRUE(of_type(events, "restart").empty());
  const auto failed = of_type(events, "run_failed");
  ASSERT_FALSE(failed.empty());
  for (const auto& e : failed) EXPECT_EQ(e["error"], "storage") << e.dump();
  EXPECT_EQ(failed.back()["exit_code"], 4) << failed.back().dump();
}

// A stop that reaches one node first (the console signals nodes one after
// the other): the ranks agree on it at their per-step all-reduce, so the
// other node's worker leaves with 143 before its own launcher got a signal.
// That node is stopped too, not failed.
TEST(Launch, StoppingOneNodeStopsTheOtherAsStoppedNotFailed) {
  Fixture f;
  const std::string port = std::to_string(test::free_port());
  auto node = [&](int rank) {
    return launch_argv(f, 1, {"--nnodes", "2", "--node-rank", std::to_string(rank), "--master-addr", "127.0.0.1", "--master-port", port},
                       {"training.max_steps=100000", "training.val_every_steps=5"});
  };
  test::ChildProcess node0(node(0), f.dir.path().string());
  test::ChildProcess node1(node(1), f.dir.path().string());
  ASSERT_TRUE(test::wait_until([&] { return has_checkpoint_at_least(f.runs, 5); }, std::chrono::seconds(120)));
  ::kill(node1.pid(), SIGTERM);  // node 0 gets no signal
  auto r1 = node1.wait();
  auto r0 = node0.wait();
  EXPECT_EQ(r1.exit_code, 143) << r1.err;
  EXPECT_EQ(r0.exit_code, 143) << r0.err;
  const auto finished = of_type(read_events(only_run(f.runs)), "run_finished");
  ASSERT_FALSE(finished.empty());
  EXPECT_EQ(finished.back()["status"], "stopped");
  EXPECT_TRUE(of_type(read_events(only_run(f.runs)), "run_failed").empty());
}

// RELIABILITY 3: a node's launcher is killed mid-run -> its worker dies with it
// (no orphan) and the other node's ranks fail at the collective timeout
// instead of hanging.
TEST(Launch, ALostNodeMakesTheOthersFailInsteadOfHanging) {
  Fixture f;
  const std::string port = std::to_string(test::free_port());
  auto node = [&](int rank) {
    return launch_argv(f, 1, {"--nnodes", "2", "--node-rank", std::to_string(rank), "--master-addr", "127.0.0.1", "--master-port", port},
                       {"training.max_steps=400", "training.val_every_steps=5", "distributed.timeout_s=3"});
  };
  test::ChildProcess node0(node(0), f.dir.path().string());
  test::ChildProcess node1(node(1), f.dir.path().string());
  ASSERT_TRUE(test::wait_until([&] { return has_checkpoint_at_least(f.runs, 5); }, std::chrono::seconds(120)));
  const pid_t worker1 = worker_of_rank(node1.pid(), 1);
  ASSERT_GT(worker1, 0);
  ::kill(node1.pid(), SIGKILL);
  node1.wait();
  EXPECT_TRUE(test::wait_until([&] { return ::kill(worker1, 0) != 0; }, std::chrono::seconds(10))) << "node 1's worker outlived its launcher";
  auto r0 = node0.wait();
  EXPECT_EQ(r0.exit_code, 1);
  EXPECT_NE(r0.err.find("rank 0 (node 0) failed first"), std::string::npos) << r0.err;
  EXPECT_TRUE(processes_mentioning(f.runs).empty());
}

// RELIABILITY 5: a node that never joins -> fail at the join timeout naming the missing rank; the port is released.
TEST(Launch, ANodeThatNeverJoinsIsNamedAndThePortReleased) {
  Fixture f;
  const int port = test::free_port();
  auto r = test::run_process(launch_argv(f, 1, {"--nnodes", "2", "--node-rank", "0", "--master-port", std::to_string(port)},
                                         {"distributed.join_timeout_s=2"}),
                             f.dir.path().string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("rank 1 never joined"), std::string::npos) << r.err;
  EXPECT_TRUE(port_is_free("127.0.0.1", port)) << "the rendezvous port is still held";
}
