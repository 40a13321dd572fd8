// Training batches of grid patches (patch_grid.hpp) for the patch-based
// VQ-GAN: each rank takes its own volumes (volume i goes to rank i mod world;
// the seed trains one patient per GPU), cuts every grid patch of them (or only
// those with enough foreground), and serves them volume by volume - volumes
// and the patches of each in an order shuffled by (base_seed, epoch, rank) -
// so a large volume is read once per epoch, an epoch is the same whatever the
// timing, and it resumes at any batch. Every rank must run the same number of batches (the
// gradient all-reduce is collective): `agree_min` returns the smallest patch
// count over the ranks and each rank trains on that many per epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "data/batch_source.hpp"
#include "data/patch_grid.hpp"

namespace medsynth {

class VolumeDataset;

struct PatchSourceOptions {
  PatchGridOptions grid;                 // tensor order (z, y, x)
  int batch_size = 1;
  double foreground_threshold = 0.1;
  double min_foreground = 0.0;           // 0: every grid patch
  bool shuffle = true;
  std::uint64_t base_seed = 42;
  int rank = 0;
  int world_size = 1;
};

class PatchBatchSource : public BatchSource {
 public:
  using AgreeMin = std::function<std::int64_t(std::int64_t)>;
  // Reads this rank's volumes once to list their patches. Throws DataError
  // when the rank has no volume or no patch passes the foreground filter.
  PatchBatchSource(const VolumeDataset& dataset, PatchSourceOptions options, const AgreeMin& agree_min = {});

  void start_epoch(int epoch, int skip_batches = 0) override;
  std::optional<Batch> next() override;
  int batches_per_epoch() const override;
  std::size_t item_count() const override { return patches_.size(); }
  // Patches kept per volume of this rank, in dataset order (for logs and tests).
  const std::vector<std::pair<std::size_t, std::size_t>>& patches() const { return patches_; }  // (item, grid index)

 private:
  const VolumeDataset& dataset_;
  PatchSourceOptions options_;
  std::vector<std::pair<std::size_t, std::size_t>> patches_;
  std::int64_t per_epoch_ = 0;           // patches used per epoch (agreed over ranks)
  std::vector<std::size_t> order_;
  int epoch_ = 0;
  std::int64_t position_ = 0;
  int batch_index_ = 0;
  // The volume the current patches come from (read once, not once per patch).
  std::size_t current_item_ = 0;
  at::Tensor current_image_;
  double current_fill_ = 0;
  PatchGrid current_grid_;
};

}  // namespace medsynth
