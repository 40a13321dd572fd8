// TrainingData of random patches of the job's image volumes (the autoencoder
// task): the train and val splits, the patch loader (data/batch_loader.hpp)
// over this rank's share of train, and validation of whole val volumes —
// this rank's share of the first training.val_max_volumes — through the
// task's own volume validation.
#pragma once

#include <functional>
#include <memory>

#include "config/job_spec.hpp"
#include "data/batch_loader.hpp"
#include "data/volume_dataset.hpp"
#include "train/training_data.hpp"

namespace medsynth {

// The patch loader's options of a job for one rank (batch, patch, flips, seed, workers).
LoaderOptions patch_loader_options(const JobSpec& job, const RunShard& shard);

class PatchTrainingData : public TrainingData {
 public:
  using ValidateVolumes =
      std::function<ValidationResult(const VolumeDataset&, const std::vector<std::size_t>& items, int keep_outputs)>;
  PatchTrainingData(const JobSpec& job, const RunShard& shard, ValidateVolumes validate);

  BatchSource& batches() override { return *loader_; }
  ValidationResult validate(int keep_outputs) override;
  std::int64_t voxels_per_sample() const override;
  DataSummary summary() const override;

 private:
  const JobSpec& job_;
  RunShard shard_;
  ValidateVolumes validate_;
  VolumeDataset train_, val_;
  std::unique_ptr<BatchLoader> loader_;  // after the datasets it reads: destroyed first
};

}  // namespace medsynth
