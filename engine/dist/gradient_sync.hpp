// DDP's gradient synchronisation, re-implemented on a c10d backend: gradients
// are averaged over ranks in buckets of about `bucket_cap_mb`, in reverse
// parameter order (the order backward produces them), and a bucket's
// all-reduce is launched from the autograd hook of its last gradient, so
// communication overlaps the rest of backward. Buckets are launched strictly
// in index order on every rank, so collectives always match. Only the last
// micro-step of an accumulation window synchronises (prepare()/finish() frame
// its backward); the others just accumulate locally, as DDP's no_sync().
//
// Why not c10d::Reducer: it is built around Python DDP (its constructor wants
// the Python-side bucket assignment, logger and comm hooks) and is not part
// of LibTorch's stable C++ surface; this is the same technique in ~200 lines.
// Used by the trainer, one instance per run, parameters grouped by optimizer.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <cstdint>
#include <mutex>
#include <vector>

#include "dist/process_group.hpp"

namespace medsynth {

struct GradientSyncOptions {
  double bucket_cap_mb = 25.0;
  bool overlap = true;  // false: launch every bucket after backward (for the benchmark's comparison)
};

struct GradientSyncStats {
  std::int64_t syncs = 0;            // finish() calls
  std::int64_t buckets_launched = 0;
  std::int64_t bytes_reduced = 0;
  std::int64_t buckets_launched_in_backward = 0;  // overlapped with compute
  double exposed_wait_seconds = 0;   // time finish() spent waiting for communication
};

class GradientSync {
 public:
  // `groups`: the parameters of each optimizer group (leaf tensors requiring grad).
  GradientSync(DistContext& context, std::vector<std::vector<at::Tensor>> groups, GradientSyncOptions options);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // The next backward of `group` ends an accumulation window: synchronise it.
  void prepare(std::size_t group);
  // After that backward: launch what is left, wait, write the averaged
  // gradients into .grad. Throws RuntimeError if a peer failed.
  void finish(std::size_t group);

  std::size_t bucket_count(std::size_t group) const;
  const GradientSyncStats& stats() const { return stats_; }

 private:
  struct Bucket {
    std::vector<std::size_t> params;   // indices into Group::params
    std::vector<std::int64_t> offsets; // element offsets in `flat`
    at::Tensor flat;
    std::size_t ready = 0;
    c10::intrusive_ptr<c10d::Work> work;
  };
  struct Group {
    std::vector<at::Tensor> params;
    std::vector<std::size_t> bucket_of;   // param -> bucket
    std::vector<std::size_t> slot_of;     // param -> position in its bucket
    std::vector<bool> ready;
    std::vector<Bucket> buckets;
    std::size_t next_launch = 0;
    bool armed = false;
  };

  void on_gradient(std::size_t group, std::size_t param, const at::Tensor& grad);
  void mark_ready(Group& g, std::size_t param, const at::Tensor& full_grad, bool in_backward);
  void launch_ready_buckets(Group& g, bool in_backward);

  DistContext& context_;
  GradientSyncOptions options_;
  std::vector<Group> groups_;
  std::vector<std::pair<at::Tensor, unsigned>> hooks_;
  std::mutex mutex_;  // hooks may run on autograd's device threads (CUDA)
  GradientSyncStats stats_;
};

}  // namespace medsynth
