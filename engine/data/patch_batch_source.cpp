#include "data/patch_batch_source.hpp"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/error.hpp"
#include "data/counter_rng.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_tensor.hpp"

namespace medsynth {
namespace {
constexpr std::uint64_t k_patch_stream = 0x7061746368ull;  // "patch"

Index3 shape_of(const at::Tensor& image) { return {image.size(-3), image.size(-2), image.size(-1)}; }
}  // namespace

PatchBatchSource::PatchBatchSource(const VolumeDataset& dataset, PatchSourceOptions options, const AgreeMin& agree_min)
    : dataset_(dataset), options_(std::move(options)) {
  options_.grid.validate();
  if (options_.batch_size < 1) throw UsageError("training.batch_size: must be >= 1");
  for (std::size_t i = static_cast<std::size_t>(options_.rank); i < dataset_.size(); i += static_cast<std::size_t>(options_.world_size)) {
    at::Tensor image = volume_to_tensor(dataset_.get(i));
    const PatchGrid grid = make_patch_grid(shape_of(image), options_.grid);
    for (std::size_t p : foreground_patches(image, grid, options_.foreground_threshold, options_.min_foreground)) patches_.emplace_back(i, p);
  }
  std::int64_t count = static_cast<std::int64_t>(patches_.size());
  if (agree_min) count = agree_min(count);
  if (count < 1)
    throw DataError(dataset_.size() && !dataset_.path(0).empty() ? dataset_.path(0) : std::string("data (" + dataset_.split() + " split)"),
                    "no training patch on some rank: rank " + std::to_string(options_.rank) + " of " + std::to_string(options_.world_size) +
                        " has " + std::to_string(patches_.size()) + " (each rank needs a volume of its own, and data.patch_min_foreground may be too high)");
  per_epoch_ = count;
  start_epoch(0);
}

int PatchBatchSource::batches_per_epoch() const { return static_cast<int>(per_epoch_ / options_.batch_size); }

void PatchBatchSource::start_epoch(int epoch, int skip_batches) {
  if (skip_batches < 0) throw UsageError("start_epoch: negative skip");
  epoch_ = epoch;
  // Volume by volume, as the seed trains (a patient's patches, then the next
  // patient's): a large volume is read and converted once per epoch, not once
  // per patch. Both the volumes and each volume's patches are shuffled.
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [first, last) in patches_, one per volume
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    if (ranges.empty() || patches_[ranges.back().first].first != patches_[i].first) ranges.emplace_back(i, i);
    ranges.back().second = i + 1;
  }
  CounterRng rng({options_.base_seed, k_patch_stream, std::uint64_t(std::int64_t(epoch)), std::uint64_t(options_.rank)});
  auto shuffle = [&](auto first, auto last) {
    if (!options_.shuffle) return;
    for (auto n = static_cast<std::size_t>(last - first); n > 1; --n) std::swap(first[n - 1], first[rng.below(n)]);
  };
  shuffle(ranges.begin(), ranges.end());
  order_.clear();
  for (const auto& [first, last] : ranges) {
    const std::size_t start = order_.size();
    for (std::size_t i = first; i < last; ++i) order_.push_back(i);
    shuffle(order_.begin() + static_cast<std::ptrdiff_t>(start), order_.end());
  }
  order_.resize(static_cast<std::size_t>(per_epoch_));
  batch_index_ = std::min(skip_batches, batches_per_epoch());
  position_ = static_cast<std::int64_t>(batch_index_) * options_.batch_size;
}

std::optional<Batch> PatchBatchSource::next() {
  if (batch_index_ >= batches_per_epoch()) return std::nullopt;
  Batch batch;
  std::vector<at::Tensor> images;
  for (int b = 0; b < options_.batch_size; ++b, ++position_) {
    const auto& [item, index] = patches_[order_[static_cast<std::size_t>(position_)]];
    if (item != current_item_ || !current_image_.defined()) {
      current_image_ = volume_to_tensor(dataset_.get(item));
      current_fill_ = current_image_.min().item<double>();
      current_grid_ = make_patch_grid(shape_of(current_image_), options_.grid);
      current_item_ = item;
    }
    images.push_back(extract_patch(current_image_, current_grid_, index, current_fill_));
    batch.ids.push_back(dataset_.id(item) + "#" + std::to_string(index));
    batch.items.push_back(item);
  }
  batch.images = at::stack(images);
  batch.index = batch_index_++;
  return batch;
}

}  // namespace medsynth
