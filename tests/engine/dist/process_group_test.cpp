// The process group and DDP-style gradient sync on real Gloo groups of forked
// processes over 127.0.0.1 (no mocks): averaging, buckets, overlap,
// accumulation, broadcast, the parameter check, a missing rank, a stopped
// peer, and the store's listening address.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <signal.h>
#include <torch/csrc/autograd/autograd.h>


#include "core/error.hpp"
#include "dist/gradient_sync.hpp"
#include "dist/parameter_check.hpp"
#include "dist/process_group.hpp"
#include "rank_processes.hpp"

using namespace medsynth;

namespace {

DistEnvironment env_for(int rank, int world, int port) {
  DistEnvironment e;
  e.rank = rank;
  e.local_rank = rank;
  e.world_size = world;
  e.local_world_size = world;
  e.master_addr = "127.0.0.1";
  e.master_port = port;
  return e;
}

std::unique_ptr<DistContext> connect(int rank, int world, int port, double timeout_s = 20, double join_s = 20) {
  ProcessGroupOptions o;
  o.backend = "gloo";
  o.timeout = std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
  o.join_timeout = std::chrono::milliseconds(static_cast<int>(join_s * 1000));
  return DistContext::connect(env_for(rank, world, port), o, c10::Device(c10::kCPU));
}

// A small network as plain leaf tensors: identical weights on every rank (seeded), per-rank data.
struct TinyNet {
  std::vector<at::Tensor> params;
  TinyNet() {
    at::manual_seed(7);
    params = {at::randn({48, 32}).requires_grad_(), at::randn({32}).requires_grad_(), at::randn({32, 16}).requires_grad_(),
              at::randn({16, 4}).requires_grad_()};
  }
  at::Tensor loss(const at::Tensor& x) const {
    at::Tensor h = at::tanh(at::matmul(x, params[0]) + params[1]);
    h = at::tanh(at::matmul(h, params[2]));
    return at::matmul(h, params[3]).pow(2).mean();
  }
};

at::Tensor data_of(int rank, int micro) {
  at::manual_seed(1000 + 10 * rank + micro);
  return at::randn({8, 48});
}

// The gradient a correct DDP step must produce on every rank: the mean over
// ranks of the summed micro-step gradients, computed locally without any sync.
std::vector<at::Tensor> expected_gradients(const TinyNet& net, int world, int micro_steps) {
  std::vector<at::Tensor> sum;
  for (int r = 0; r < world; ++r)
    for (int m = 0; m < micro_steps; ++m) {
      auto g = torch::autograd::grad({net.loss(data_of(r, m))}, net.params);
      if (sum.empty())
        for (auto& t : g) sum.push_back(t.clone());
      else
        for (std::size_t i = 0; i < g.size(); ++i) sum[i] += g[i];
    }
  for (auto& t : sum) t /= world;
  return sum;
}

void check_sync(int rank, int world, int port, int micro_steps, bool overlap, GradientSyncStats* stats_out = nullptr) {
  auto ctx = connect(rank, world, port);
  TinyNet net;
  const auto expected = expected_gradients(net, world, micro_steps);
  GradientSync sync(*ctx, {net.params}, GradientSyncOptions{.bucket_cap_mb = 0.004, .overlap = overlap});
  if (sync.bucket_count(0) < 2) throw RuntimeError("expected several buckets");
  for (int m = 0; m < micro_steps; ++m) {
    const bool last = m == micro_steps - 1;
    if (last) sync.prepare(0);
    net.loss(data_of(rank, m)).backward();
    if (last) sync.finish(0);
  }
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!at::allclose(net.params[i].grad(), expected[i], 1e-5, 1e-6))
      throw RuntimeError("rank " + std::to_string(rank) + ": gradient " + std::to_string(i) + " is not the mean over ranks");
  if (sync.stats().syncs != 1) throw RuntimeError("expected exactly one sync for the accumulation window");
  if (stats_out) *stats_out = sync.stats();
}

}  // namespace

TEST(GradientSync, AveragesGradientsOverRanksInOverlappedBuckets) {
  const int port = test::free_port();
  auto ranks = test::fork_ranks(2, [&](int r) { check_sync(r, 2, port, 1, true); });
  GradientSyncStats stats;
  EXPECT_NO_THROW(check_sync(0, 2, port, 1, true, &stats));
  EXPECT_EQ(test::wait_ranks(ranks), std::vector<int>{0});
  EXPECT_GT(stats.buckets_launched, 1);
  EXPECT_GT(stats.buckets_launched_in_backward, 0) << "no bucket was launched while backward ran";
}

TEST(GradientSync, AccumulationSyncsOnceOverTheSumOfMicroSteps) {
  const int port = test::free_port();
  auto ranks = test::fork_ranks(3, [&](int r) { check_sync(r, 3, port, 2, true); });
  EXPECT_NO_THROW(check_sync(0, 3, port, 2, true));
  EXPECT_EQ(test::wait_ranks(ranks), (std::vector<int>{0, 0}));
}

TEST(GradientSync, WithoutOverlapEveryBucketIsLaunchedAfterBackward) {
  const int port = test::free_port();
  auto ranks = test::fork_ranks(2, [&](int r) { check_sync(r, 2, port, 1, false); });
  GradientSyncStats stats;
  EXPECT_NO_THROW(check_sync(0, 2, port, 1, false, &stats));
  EXPECT_EQ(test::wait_ranks(ranks), std::vector<int>{0});
  EXPECT_EQ(stats.buckets_launched_in_backward, 0);
  EXPECT_GT(stats.buckets_launched, 1);
}

TEST(ProcessGroup, BroadcastThenParameterCheckAgreeAndADivergenceIsNamed) {
  const int port = test::free_port();
  auto body = [port](int rank) {
    auto ctx = connect(rank, 2, port);
    at::manual_seed(100 + rank);  // different "initialisations" per rank
    std::vector<at::Tensor> params{at::randn({5, 5}), at::randn({7}), at::arange(4, at::kLong)};
    const std::vector<std::string> names{"a.weight", "a.bias", "a.counter"};
    ctx->broadcast(params, 0, "test broadcast");
    check_parameters_identical(*ctx, names, params);  // must not throw now
    if (rank == 1) params[1][3] += 1e-3f;
    try {
      check_parameters_identical(*ctx, names, params);
    } catch (const RuntimeError& e) {
      if (rank == 1 && std::string(e.what()).find("a.bias") == std::string::npos) throw RuntimeError("not named: " + std::string(e.what()));
      return;
    }
    throw RuntimeError("the divergence was not detected");
  };
  auto ranks = test::fork_ranks(2, body);
  EXPECT_NO_THROW(body(0));
  EXPECT_EQ(test::wait_ranks(ranks), std::vector<int>{0});
}

TEST(ProcessGroup, ARankThatNeverJoinsIsNamed) {
  const int port = test::free_port();
  auto body = [port](int rank) {
    try {
      connect(rank, 3, port, 20, 1.5);
    } catch (const RuntimeError& e) {
      if (std::string(e.what()).find("rank 2 never joined") == std::string::npos) throw RuntimeError("unexpected: " + std::string(e.what()));
      return;
    }
    throw RuntimeError("joined a group with a missing rank");
  };
  auto ranks = test::fork_ranks(3, body, /*spawned=*/2);  // rank 2 is never started
  EXPECT_NO_THROW(body(0));
  EXPECT_EQ(test::wait_ranks(ranks), std::vector<int>{0});
}

TEST(ProcessGroup, AStoppedPeerMakesTheCollectiveFailAtTheTimeout) {
  const int port = test::free_port();
  auto ranks = test::fork_ranks(2, [port](int rank) {
    auto ctx = connect(rank, 2, port, 2.0);
    ctx->barrier("ready");
    ::raise(SIGSTOP);  // a rank that stops answering inside the run
  });
  auto ctx = connect(0, 2, port, 2.0);
  ctx->barrier("ready");
  try {
    std::vector<double> v{1.0};
    ctx->all_reduce_sum(v, "step agreement");
    ADD_FAILURE() << "the collective completed without the stopped peer";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("step agreement"), std::string::npos) << e.what();
  }
  ::kill(ranks.children[0], SIGKILL);
  test::wait_ranks(ranks);
}

TEST(ProcessGroup, TheStoreListensOnTheChosenAddressOnly) {
  const int port = test::free_port();
  auto ranks = test::fork_ranks(2, [port](int rank) {
    auto ctx = connect(rank, 2, port);
    ctx->barrier("inspected");
  });
  auto ctx = connect(0, 2, port);
  const std::vector<std::string> listeners = test::listeners_on(port);
  ctx->barrier("inspected");
  EXPECT_EQ(test::wait_ranks(ranks), std::vector<int>{0});
  ASSERT_EQ(listeners.size(), 1u) << "the store port is listened on more than once";
  EXPECT_EQ(listeners[0], "0100007F") << "the store must listen on 127.0.0.1 only, not on all addresses";
}
