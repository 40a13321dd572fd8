// The process group of a distributed run: the TCPStore rendezvous (hosted by
// the launcher, or by rank 0 on a socket bound to the master address only),
// the join check that names missing ranks, and the c10d backend (NCCL when the
// job runs on CUDA, Gloo otherwise). Collectives raise medsynth errors that say
// which rank and operation failed. Used by the trainer and gradient_sync.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dist/dist_environment.hpp"

namespace medsynth {

struct ProcessGroupOptions {
  std::string backend = "auto";                     // auto | gloo | nccl
  std::chrono::milliseconds timeout{600'000};       // per collective
  std::chrono::milliseconds join_timeout{300'000};  // all ranks joined, store reachable
};

class DistContext {
 public:
  // Connects to (or, on rank 0 without a launcher, hosts) the store, waits
  // until every rank joined, and creates the backend. Throws RuntimeError
  // naming the missing ranks or the unreachable master, UsageError for a
  // busy/unbindable rendezvous port.
  static std::unique_ptr<DistContext> connect(const DistEnvironment& env, const ProcessGroupOptions& options,
                                              const c10::Device& device);
  ~DistContext();
  // The orderly end of a group that finished its work: NCCL flushes and
  // destroys its communicators (without it ProcessGroupNCCL aborts them in its
  // destructor and warns that the group was never destroyed). Not called on
  // error paths, where a dead peer could make the flush wait: the destructor
  // alone releases the backend there. Collectives after it are not allowed.
  void shutdown();

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  const DistEnvironment& environment() const { return env_; }
  const std::string& backend_name() const { return backend_name_; }
  const c10::Device& device() const { return device_; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }

  // In-place sum over ranks (tensors on device()). Blocking.
  void all_reduce_sum(std::vector<at::Tensor>& tensors, const char* what);
  // Started, not waited for: wait() the Work (wait_work translates errors).
  c10::intrusive_ptr<c10d::Work> all_reduce_sum_async(std::vector<at::Tensor>& tensors);
  void wait_work(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
  // Sum of small host values (loss, flags, metric sums) over ranks.
  std::vector<double> all_reduce_sum(const std::vector<double>& values, const char* what);
  // Copies rank `root`'s values of `tensors` into every rank's (any device, dense).
  void broadcast(const std::vector<at::Tensor>& tensors, int root, const char* what);
  void barrier(const char* what);
  // Rank 0's `value` on every rank (through the store; e.g. the run directory
  // rank 0 created). Other ranks pass anything and block until it is set.
  std::string share_from_rank0(const std::string& key, const std::string& value);
  // Prefix of share_from_rank0 keys, so that several trainings in one process
  // group (the stages of an LDM pipeline) never read each other's values.
  void set_key_scope(std::string scope) { key_scope_ = std::move(scope); }
  // The local address Gloo bound for peer traffic (empty for NCCL).
  const std::string& peer_address() const { return peer_address_; }

 private:
  std::string key_scope_;
  DistContext() = default;
  [[noreturn]] void fail(const char* what, const std::string& detail) const;

  DistEnvironment env_;
  ProcessGroupOptions options_;
  c10::Device device_{c10::kCPU};
  std::string backend_name_;
  std::string peer_address_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::Backend> backend_;
};

// The address Gloo binds for peer traffic, first match wins:
// MEDSYNTH_GLOO_ADDRESS; the address of MEDSYNTH_GLOO_INTERFACE (set by
// `launch --gloo-interface`) or of GLOO_SOCKET_IFNAME; loopback for a loopback
// master; otherwise the local address that routes to the master address.
// Throws UsageError for an interface without an address or an unroutable master.
std::string gloo_interface_address(const DistEnvironment& env, const EnvLookup& lookup);

}  // namespace medsynth
