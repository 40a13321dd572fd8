// Training batches of random patches from a VolumeDataset: the sampler (a
// per-epoch permutation split among ranks, PyTorch DistributedSampler
// semantics) and the loader (worker threads preparing batches ahead, MONAI /
// PyTorch DataLoader style). Called by the trainer once per rank.
//
// Reproducibility contract: the batches of an epoch depend only on
// (dataset, options, epoch) — not on num_workers, thread timing or where the
// epoch was started. The order is a permutation from (base_seed, epoch); each
// sample's patch position and flips come from a counter-based generator keyed
// on (base_seed, epoch, position of the sample in the epoch's order). Resuming
// with start_epoch(e, k) yields exactly batches k, k+1, ... of an uninterrupted
// epoch e; that is how the trainer resumes bit-identically. base_seed must be
// the same on every rank (the job's base seed, not the per-rank one).
//
// Threading: one consumer thread calls start_epoch()/next(); num_workers
// internal threads build batches (num_workers = 0: built inside next()). A
// DataError (or any error) from building batch k is rethrown by the next()
// that would have returned batch k. Destruction stops the workers cleanly
// (each finishes at most the batch it is building). The dataset must outlive
// the loader.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "data/batch_source.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_tensor.hpp"

namespace medsynth {

struct LoaderOptions {
  int batch_size = 1;                    // per rank
  std::array<int, 3> patch_size{32, 32, 32};  // x, y, z voxels
  bool random_flip = true;               // mirror each axis with p = 0.5
  bool shuffle = true;                   // false: dataset order every epoch
  bool drop_last = false;                // drop the tail that does not fill every rank / the last short batch
  std::uint64_t base_seed = 42;          // same on every rank
  int rank = 0;
  int world_size = 1;
  int num_workers = 2;                   // 0: batches are built inside next()
  int prefetch = 2;                      // batches ready or in progress ahead of the consumer: max(prefetch, num_workers)
};


class BatchLoader : public BatchSource {
 public:
  // Throws ConfigError for invalid options (batch size, patch size, rank, world
  // size, workers, prefetch) and when an epoch would hold no batch at all.
  // `more_channels`: datasets of the same cases in the same order (the other
  // contrasts of multi-contrast cases); their volumes become channels 1.. of
  // each sample, cut at the same place and flipped alike. A case whose
  // channels differ in size fails with a DataError naming it.
  BatchLoader(const VolumeDataset& dataset, LoaderOptions options,
              std::vector<const VolumeDataset*> more_channels = {});
  ~BatchLoader() override;
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Begins epoch `epoch` at batch `skip_batches` (0..batches_per_epoch();
  // UsageError if negative). Batches prepared for a previous epoch are dropped.
  void start_epoch(int epoch, int skip_batches = 0) override;
  // The next batch in order, or nullopt at the end of the epoch. RuntimeError
  // before the first start_epoch().
  std::optional<Batch> next() override;
  int batches_per_epoch() const override { return batches_per_epoch_; }
  std::size_t item_count() const override { return dataset_.size(); }
  // This rank's dataset indices of an epoch, in delivery order (after padding
  // or dropping, before batching).
  std::vector<std::size_t> epoch_indices(int epoch) const;
  const LoaderOptions& options() const { return options_; }

 private:
  struct Sample {
    std::size_t position;  // in the epoch's global order: keys the patch RNG
    std::size_t item;      // dataset index
  };
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };

  std::vector<Sample> rank_samples(int epoch) const;
  std::vector<Sample> batch_samples(int batch) const;  // of the current epoch; caller holds mutex_
  Batch build_batch(int epoch, int batch, const std::vector<Sample>& samples) const;
  void worker_loop();
  void stop_workers();

  const VolumeDataset& dataset_;
  std::vector<const VolumeDataset*> more_channels_;
  LoaderOptions options_;
  int batches_per_epoch_ = 0;

  std::mutex mutex_;
  std::condition_variable work_cv_;   // workers wait for batches to claim
  std::condition_variable ready_cv_;  // the consumer waits for its next batch
  bool started_ = false;
  bool stopping_ = false;
  std::uint64_t generation_ = 0;      // bumped by start_epoch: results of older epochs are dropped
  int epoch_ = 0;
  std::vector<Sample> samples_;       // this rank's samples of the current epoch
  int next_claim_ = 0;
  int next_deliver_ = 0;
  std::map<int, Result> ready_;
  std::vector<std::thread> workers_;
};

}  // namespace medsynth
