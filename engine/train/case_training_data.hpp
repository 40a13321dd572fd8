// TrainingData of multi-contrast cases (task translation): one dataset per
// contrast of the same cases, in the same order (data/case_listing.hpp), so
// the cache, the preprocessing and the header checks are each contrast's
// VolumeDataset's; the patch loader cuts every contrast of a case at one
// place and stacks them as channels (data.channels, then data.target).
// Validation is the task's, over this rank's share of the held-out cases.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/batch_loader.hpp"
#include "data/volume_dataset.hpp"
#include "train/training_data.hpp"

namespace medsynth {

// One contrast's datasets: the job's data reading only `contrast` of each case.
DataSpec contrast_data(const DataSpec& data, const std::string& contrast);

// The contrasts of a split as datasets, in channel order.
using ContrastDatasets = std::vector<std::unique_ptr<VolumeDataset>>;
ContrastDatasets contrast_datasets(const JobSpec& job, const std::vector<std::string>& contrasts,
                                   const std::string& split);

class CaseTrainingData : public TrainingData {
 public:
  using ValidateCases =
      std::function<ValidationResult(const ContrastDatasets&, const std::vector<std::size_t>& items, int keep_outputs)>;
  // `contrasts`: channel order; every case must have each (DataError naming the case and the contrast).
  CaseTrainingData(const JobSpec& job, const RunShard& shard, const std::vector<std::string>& contrasts,
                   ValidateCases validate);

  BatchSource& batches() override { return *loader_; }
  ValidationResult validate(int keep_outputs) override;
  std::int64_t voxels_per_sample() const override;
  DataSummary summary() const override;

 private:
  const JobSpec& job_;
  RunShard shard_;
  ValidateCases validate_;
  ContrastDatasets train_, val_;
  std::unique_ptr<BatchLoader> loader_;  // after the datasets it reads: destroyed first
};

}  // namespace medsynth
