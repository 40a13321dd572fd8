#include "train/own_batch_data.hpp"

#include <string>
#include <utility>

namespace medsynth {

OwnBatchData::OwnBatchData(std::unique_ptr<BatchSource> batches, Validate validate, std::int64_t voxels_per_sample,
                           std::size_t val_items)
    : batches_(std::move(batches)),
      validate_(std::move(validate)),
      voxels_per_sample_(voxels_per_sample),
      val_items_(val_items) {}

DataSummary OwnBatchData::summary() const {
  const std::size_t items = batches_->item_count();
  return {items, val_items_, std::to_string(items) + " training items on this rank, "};
}

}  // namespace medsynth
