#include "train/case_training_data.hpp"

#include <utility>

#include "data/case_grids.hpp"
#include "train/patch_training_data.hpp"

namespace medsynth {

DataSpec contrast_data(const DataSpec& data, const std::string& contrast) {
  DataSpec one = data;
  one.channels = {contrast};
  return one;
}

ContrastDatasets contrast_datasets(const JobSpec& job, const std::vector<std::string>& contrasts,
                                   const std::string& split) {
  ContrastDatasets out;
  for (const auto& contrast : contrasts)
    out.push_back(std::make_unique<VolumeDataset>(contrast_data(job.data, contrast), split, job.training.base_seed));
  return out;
}

CaseTrainingData::CaseTrainingData(const JobSpec& job, const RunShard& shard, const std::vector<std::string>& contrasts,
                                   ValidateCases validate)
    : job_(job),
      shard_(shard),
      validate_(std::move(validate)),
      train_(contrast_datasets(job, contrasts, "train")),
      val_(contrast_datasets(job, contrasts, "val")) {
  std::vector<const VolumeDataset*> more, more_val;
  for (std::size_t c = 1; c < train_.size(); ++c) more.push_back(train_[c].get());
  for (std::size_t c = 1; c < val_.size(); ++c) more_val.push_back(val_[c].get());
  check_case_grids(*train_.front(), more);
  check_case_grids(*val_.front(), more_val);
  loader_ = std::make_unique<BatchLoader>(*train_.front(), patch_loader_options(job, shard), std::move(more));
}

ValidationResult CaseTrainingData::validate(int keep_outputs) {
  const std::size_t cases = val_.front()->size();
  return validate_(val_, validation_items(cases, job_.training.val_max_volumes, shard_.rank, shard_.world_size),
                   keep_outputs);
}

std::int64_t CaseTrainingData::voxels_per_sample() const {
  const auto& p = job_.data.patch_size;
  return static_cast<std::int64_t>(p[0]) * p[1] * p[2] * static_cast<std::int64_t>(train_.size());
}

DataSummary CaseTrainingData::summary() const {
  const std::size_t train = train_.front()->size(), val = val_.front()->size();
  return {train, val,
          std::to_string(train) + " train / " + std::to_string(val) + " val cases of " + std::to_string(train_.size()) +
              " contrasts, "};
}

}  // namespace medsynth
