#include "data/survival_data.hpp"

#include <ATen/ATen.h>

#include <sstream>

#include "core/error.hpp"
#include "data/counter_rng.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_listing.hpp"
#include "data/volume_tensor.hpp"

namespace medsynth {

std::vector<std::string> covariate_columns(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    const auto b = part.find_first_not_of(' '), e = part.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(part.substr(b, e - b + 1));
  }
  return out;
}

SurvivalData::SurvivalData(const JobSpec& job, const std::string& split) : job_(job) {
  DataSpec spec = job.data;
  if (spec.smart_cache) spec.cache_rate = 0;  // the smart cache holds the volumes, not the dataset
  volumes_ = std::make_unique<VolumeDataset>(spec, split, static_cast<std::uint64_t>(job.training.base_seed));
  if (spec.source == DataSource::simulated) {
    std::array<double, 3> fov;
    for (int d = 0; d < 3; ++d) fov[d] = spec.phantom_size[d] * spec.phantom_spacing[d];
    for (std::size_t i = 0; i < volumes_->size(); ++i) {
      SimulatedSurvival s = simulate_survival(volumes_->phantom_seed(i), fov);
      lesions_.push_back(s.lesion);
      labels_.push_back(s.label);
    }
  } else if (spec.source == DataSource::csv) {
    const auto entries = read_volume_manifest(spec.path);
    const auto all = survival_labels_from_manifest(spec.path, entries, covariate_columns(spec.covariates));
    for (std::size_t i = 0; i < volumes_->size(); ++i) {
      std::size_t k = 0;
      while (k < entries.size() && entries[k].path != volumes_->path(i)) ++k;
      if (k == entries.size()) throw DataError(spec.path, "no row for " + volumes_->path(i));
      labels_.push_back(all[k]);
    }
  } else {
    throw ConfigError(std::vector<FieldError>{{"data.source", "task survival needs labels: csv (a manifest with time and event columns) or simulated"}});
  }
}

SurvivalData::~SurvivalData() = default;

std::size_t SurvivalData::size() const { return volumes_->size(); }
const std::string& SurvivalData::id(std::size_t i) const { return volumes_->id(i); }
std::size_t SurvivalData::loads() const { return loads_.load(); }

at::Tensor SurvivalData::image(std::size_t i) const {
  ++loads_;
  const Volume& volume = volumes_->get(i);
  at::Tensor t = volume_to_tensor(volume);  // [1, 1, Z, Y, X]
  if (!lesions_.empty()) paint_lesion(t, {volume.spacing[0], volume.spacing[1], volume.spacing[2]}, lesions_[i], job_.data.ct_window);
  const auto& p = job_.data.patch_size;  // x, y, z
  const std::vector<std::int64_t> size{p[2], p[1], p[0]};
  if (t.size(2) != size[0] || t.size(3) != size[1] || t.size(4) != size[2])
    t = at::upsample_trilinear3d(t, size, /*align_corners=*/false, std::nullopt, std::nullopt, std::nullopt);
  return t.squeeze(0);
}

SurvivalBatchSource::SurvivalBatchSource(const SurvivalData& data, SurvivalSourceOptions options) : data_(data), options_(options) {
  const std::size_t per_rank = data_.size() / static_cast<std::size_t>(options_.world_size);
  for (std::size_t k = 0; k < per_rank; ++k) items_.push_back(k * static_cast<std::size_t>(options_.world_size) + static_cast<std::size_t>(options_.rank));
  if (items_.empty())
    throw ConfigError(std::vector<FieldError>{{"data.num_train", "each of the " + std::to_string(options_.world_size) + " processes needs at least one training volume (got " +
                                              std::to_string(data_.size()) + ")"}});
  if (options_.smart_cache) {
    options_.cache.seed = hash_keys({options_.base_seed, static_cast<std::uint64_t>(options_.rank)});
    cache_ = std::make_unique<SmartCache>(items_, [this](std::size_t item) { return data_.image(item); }, options_.cache);
  }
  if (batches_per_epoch() < 1)
    throw ConfigError(std::vector<FieldError>{{"training.batch_size", "larger than the " + std::to_string(cache_ ? cache_->cache_num() : items_.size()) +
                                                   " volumes a process trains on per epoch"}});
  start_epoch(0);
}

int SurvivalBatchSource::batches_per_epoch() const {
  const std::size_t n = cache_ ? cache_->cache_num() : items_.size();
  return static_cast<int>(n / static_cast<std::size_t>(options_.batch_size));
}

void SurvivalBatchSource::start_epoch(int epoch, int skip_batches) {
  epoch_items_ = cache_ ? cache_->set_epoch(epoch) : items_;
  CounterRng rng({options_.base_seed, 0x7375727662ull, std::uint64_t(std::int64_t(epoch)), std::uint64_t(options_.rank)});
  for (std::size_t i = epoch_items_.size(); i > 1; --i) std::swap(epoch_items_[i - 1], epoch_items_[rng.below(i)]);
  batch_index_ = std::min(std::max(skip_batches, 0), batches_per_epoch());
}

std::optional<Batch> SurvivalBatchSource::next() {
  if (batch_index_ >= batches_per_epoch()) return std::nullopt;
  Batch batch;
  std::vector<at::Tensor> images, labels;
  for (int b = 0; b < options_.batch_size; ++b) {
    const std::size_t item = epoch_items_[static_cast<std::size_t>(batch_index_ * options_.batch_size + b)];
    images.push_back(cache_ ? cache_->get(item) : data_.image(item));
    const SurvivalLabel& l = data_.label(item);
    std::vector<double> row{l.time, static_cast<double>(l.event)};
    row.insert(row.end(), l.covariates.begin(), l.covariates.end());
    labels.push_back(at::tensor(row, at::kDouble));
    batch.ids.push_back(data_.id(item));
    batch.items.push_back(item);
  }
  batch.images = at::stack(images);
  batch.labels = at::stack(labels);
  batch.index = batch_index_++;
  return batch;
}

}  // namespace medsynth
