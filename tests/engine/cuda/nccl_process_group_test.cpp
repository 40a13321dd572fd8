// An NCCL process group of world size 1 on cuda:0 through the engine's own
// rendezvous (DistContext: TCPStore on a socket bound to 127.0.0.1, the join
// check, the NCCL factory): it initialises, all-reduces, broadcasts, passes a
// barrier and shuts down without error. Skipped, with the reason printed,
// where there is no GPU.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>

#include "dist/backend_factory.hpp"
#include "dist/process_group.hpp"
#include "engine/cuda/cuda_device.hpp"
#include "engine/dist/rank_processes.hpp"

using namespace medsynth;

TEST(CudaNccl, WorldOfOneInitialisesAllReducesAndShutsDownCleanly) {
  MEDSYNTH_REQUIRE_CUDA();
  ASSERT_TRUE(nccl_compiled_in()) << "this LibTorch has no NCCL";
  DistEnvironment env;
  env.master_addr = "127.0.0.1";
  env.master_port = test::free_port();
  ProcessGroupOptions options;  // backend auto: nccl for a CUDA device
  options.timeout = std::chrono::milliseconds(60'000);
  options.join_timeout = std::chrono::milliseconds(30'000);
  const auto started = std::chrono::steady_clock::now();
  auto group = DistContext::connect(env, options, test::cuda0());
  ASSERT_EQ(group->backend_name(), "nccl");
  EXPECT_EQ(group->world_size(), 1);
  EXPECT_TRUE(group->peer_address().empty());

  // A tensor all-reduce on the GPU (the gradient buckets' path): a sum over one rank is the identity.
  std::vector<at::Tensor> tensors{at::arange(1, 1025, at::TensorOptions().dtype(at::kFloat).device(test::cuda0()))};
  const at::Tensor before = tensors[0].clone();
  group->all_reduce_sum(tensors, "test all-reduce");
  EXPECT_TRUE(at::equal(tensors[0], before));
  // The host values' path (the trainer's step agreement) and a broadcast from rank 0.
  EXPECT_EQ(group->all_reduce_sum(std::vector<double>{1.5, 0.0, 2.0}, "test values"), (std::vector<double>{1.5, 0.0, 2.0}));
  group->broadcast({tensors[0]}, 0, "test broadcast");
  EXPECT_TRUE(at::equal(tensors[0], before));
  group->barrier("test barrier");

  EXPECT_NO_THROW(group->shutdown());
  group.reset();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 60.0) << "init + collectives + shutdown";
}
