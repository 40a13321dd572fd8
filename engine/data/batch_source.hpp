// What the trainer pulls training batches from: the patch loader over image
// volumes (batch_loader.hpp) or a task's own source, such as the LDM task's
// loader over stored latents. Same contract as BatchLoader: the batches of an
// epoch depend only on (data, options, epoch), start_epoch(e, k) resumes at
// batch k, and every rank sees its own share.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace medsynth {

struct Batch {
  at::Tensor images;                     // float32 [B, C, Z, Y, X], CPU (C = 1 for image volumes)
  std::vector<std::string> ids;          // dataset ids, one per sample
  std::vector<std::size_t> items;        // dataset indices, one per sample
  // One per sample, from (base_seed, epoch, position in the epoch's order):
  // seeds the sample's training noise (e.g. the VAE's reparameterisation),
  // so a run draws the same noise whatever the ranks, batch size or
  // accumulation — 2 ranks x batch b train exactly like 1 rank x batch 2b.
  std::vector<std::uint64_t> sample_keys;
  // Per-sample targets of a supervised task, [B, L] float64 (the survival
  // task: time, event, covariates); undefined for image-only tasks.
  at::Tensor labels;
  int index = 0;                         // batch number within the epoch
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual void start_epoch(int epoch, int skip_batches = 0) = 0;
  virtual std::optional<Batch> next() = 0;
  virtual int batches_per_epoch() const = 0;
  // Items this rank trains on (for the run_started event).
  virtual std::size_t item_count() const = 0;
};

}  // namespace medsynth
