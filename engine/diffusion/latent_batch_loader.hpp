// Training batches over stored latents (the LDM task's BatchSource): the same
// sampler semantics as the patch loader (a permutation per (base_seed, epoch),
// split among ranks, drop_last or pad by repeating), whole latents scaled by
// the folder's scale factor, and per-sample keys for the diffusion noise;
// the latents' label maps (LatentRecord::condition), when they have them, as
// the batch's labels.
// Latents are small (a 64^3 image is a 16^3 x 4 latent), so they are held in
// memory and batches are built on the caller's thread.
#pragma once

#include <array>
#include <vector>

#include "data/batch_source.hpp"
#include "diffusion/latent_files.hpp"

namespace medsynth {

struct LatentLoaderOptions {
  int batch_size = 1;
  bool drop_last = true;
  std::uint64_t base_seed = 42;
  int rank = 0;
  int world_size = 1;
  double scale_factor = 1.0;
};

class LatentBatchLoader : public BatchSource {
 public:
  // DataError naming two ids when batch_size > 1 and the latents differ in shape.
  LatentBatchLoader(std::vector<LatentRecord> latents, LatentLoaderOptions options);
  void start_epoch(int epoch, int skip_batches = 0) override;
  std::optional<Batch> next() override;
  int batches_per_epoch() const override { return batches_per_epoch_; }
  std::size_t item_count() const override { return latents_.size(); }
  // Image spacing (mm) of each sample of the batch last returned by next():
  // the LDM task's spacing conditioning reads it for that batch.
  const std::vector<std::array<double, 3>>& last_spacings() const { return last_spacings_; }
  // The latents of that batch (their spacing and body regions condition the UNet).
  const std::vector<const LatentRecord*>& last_records() const { return last_records_; }

 private:
  std::vector<std::size_t> epoch_indices(int epoch) const;
  std::vector<LatentRecord> latents_;
  LatentLoaderOptions options_;
  int batches_per_epoch_ = 0;
  int epoch_ = -1;
  int next_batch_ = 0;
  std::vector<std::size_t> order_;
  std::vector<std::array<double, 3>> last_spacings_;
  std::vector<const LatentRecord*> last_records_;
};

}  // namespace medsynth
