// TrainingData from a task that brings its own batch source (vqgan's grid
// patches, survival's labelled volumes, ldm's stored latents): the source,
// the task's validation for this rank and the size of one sample. Whatever
// the source reads from stays with the task, which outlives this.
#pragma once

#include <functional>
#include <memory>

#include "train/training_data.hpp"

namespace medsynth {

class OwnBatchData : public TrainingData {
 public:
  using Validate = std::function<ValidationResult(int keep_outputs)>;
  // `val_items`: the job's validation volumes (the run_started event's val_volumes), 0 when it has none of its own.
  OwnBatchData(std::unique_ptr<BatchSource> batches, Validate validate, std::int64_t voxels_per_sample,
               std::size_t val_items = 0);

  BatchSource& batches() override { return *batches_; }
  ValidationResult validate(int keep_outputs) override { return validate_(keep_outputs); }
  std::int64_t voxels_per_sample() const override { return voxels_per_sample_; }
  // The items this rank trains on and the job's validation volumes.
  DataSummary summary() const override;

 private:
  std::unique_ptr<BatchSource> batches_;
  Validate validate_;
  std::int64_t voxels_per_sample_;
  std::size_t val_items_;
};

}  // namespace medsynth
