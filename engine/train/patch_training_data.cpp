#include "train/patch_training_data.hpp"

#include <string>
#include <utility>

namespace medsynth {

LoaderOptions patch_loader_options(const JobSpec& job, const RunShard& shard) {
  LoaderOptions lo;
  lo.batch_size = job.training.batch_size;
  lo.patch_size = job.data.patch_size;
  lo.random_flip = job.data.random_flip;
  lo.shuffle = true;
  lo.drop_last = job.distributed.drop_last;
  lo.base_seed = static_cast<std::uint64_t>(job.training.base_seed);
  lo.rank = shard.rank;
  lo.world_size = shard.world_size;
  lo.num_workers = job.data.num_workers;
  lo.prefetch = job.data.prefetch;
  return lo;
}

PatchTrainingData::PatchTrainingData(const JobSpec& job, const RunShard& shard, ValidateVolumes validate)
    : job_(job),
      shard_(shard),
      validate_(std::move(validate)),
      train_(job.data, "train", job.training.base_seed),
      val_(job.data, "val", job.training.base_seed),
      loader_(std::make_unique<BatchLoader>(train_, patch_loader_options(job, shard))) {}

ValidationResult PatchTrainingData::validate(int keep_outputs) {
  return validate_(val_, validation_items(val_.size(), job_.training.val_max_volumes, shard_.rank, shard_.world_size),
                   keep_outputs);
}

std::int64_t PatchTrainingData::voxels_per_sample() const {
  const auto& p = job_.data.patch_size;
  return static_cast<std::int64_t>(p[0]) * p[1] * p[2];
}

DataSummary PatchTrainingData::summary() const {
  return {train_.size(), val_.size(),
          std::to_string(train_.size()) + " train / " + std::to_string(val_.size()) + " val volumes, "};
}

}  // namespace medsynth
