#include "diffusion/latent_batch_loader.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "data/counter_rng.hpp"

namespace medsynth {

LatentBatchLoader::LatentBatchLoader(std::vector<LatentRecord> latents, LatentLoaderOptions options)
    : latents_(std::move(latents)), options_(options) {
  if (options_.batch_size < 1) throw ConfigError(std::vector<FieldError>{{"training.batch_size", "must be at least 1"}});
  for (std::size_t i = 1; i < latents_.size() && options_.batch_size > 1; ++i)
    if (latents_[i].latent.sizes() != latents_[0].latent.sizes())
      throw DataError(latents_[i].id, "latent shape differs from " + latents_[0].id + "'s; batches of whole latents need one shape (set training.batch_size 1)");
  const std::size_t per_rank = options_.drop_last ? latents_.size() / options_.world_size
                                                  : (latents_.size() + options_.world_size - 1) / options_.world_size;
  batches_per_epoch_ = static_cast<int>(per_rank / static_cast<std::size_t>(options_.batch_size));
  if (batches_per_epoch_ < 1)
    throw UsageError("training: " + std::to_string(latents_.size()) + " latents cannot fill one batch of " + std::to_string(options_.batch_size) +
                     " on each of " + std::to_string(options_.world_size) + " ranks; add data or lower training.batch_size");
}

std::vector<std::size_t> LatentBatchLoader::epoch_indices(int epoch) const {
  std::vector<std::size_t> all(latents_.size());
  std::iota(all.begin(), all.end(), 0);
  // Fisher-Yates with a counter-based generator: the same order on every rank.
  CounterRng rng{options_.base_seed, 0x6c646dull /* "ldm" */, static_cast<std::uint64_t>(epoch)};
  for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.next() % i]);
  const std::size_t world = static_cast<std::size_t>(options_.world_size);
  const std::size_t total = options_.drop_last ? all.size() / world * world : (all.size() + world - 1) / world * world;
  const std::size_t n = all.size();
  for (std::size_t i = n; i < total; ++i) all.push_back(all[(i - n) % n]);
  all.resize(total);
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(options_.rank); i < total; i += world) mine.push_back(all[i]);
  return mine;
}

void LatentBatchLoader::start_epoch(int epoch, int skip_batches) {
  if (skip_batches < 0) throw UsageError("start_epoch: negative batch offset");
  epoch_ = epoch;
  order_ = epoch_indices(epoch);
  next_batch_ = skip_batches;
}

std::optional<Batch> LatentBatchLoader::next() {
  if (epoch_ < 0) throw RuntimeError("LatentBatchLoader::next() before start_epoch()");
  if (next_batch_ >= batches_per_epoch_) return std::nullopt;
  Batch b;
  b.index = next_batch_;
  std::vector<at::Tensor> parts, conditions;
  last_spacings_.clear();
  last_records_.clear();
  for (int k = 0; k < options_.batch_size; ++k) {
    const std::size_t position = static_cast<std::size_t>(next_batch_) * options_.batch_size + k;
    const std::size_t item = order_[position];
    parts.push_back(latents_[item].latent * options_.scale_factor);
    b.ids.push_back(latents_[item].id);
    b.items.push_back(item);
    // Keyed on the position in the epoch's global order, like the patch loader.
    b.sample_keys.push_back(hash_keys({options_.base_seed, 0x6c646dull, static_cast<std::uint64_t>(epoch_),
                                       position * options_.world_size + options_.rank}));
    last_spacings_.push_back(latents_[item].image_spacing);
    last_records_.push_back(&latents_[item]);
    if (latents_[item].condition.defined()) conditions.push_back(latents_[item].condition);
  }
  b.images = at::stack(parts, 0).to(at::kFloat);
  // Label maps travel as the batch's per-sample labels (on the CPU).
  if (!conditions.empty()) b.labels = at::stack(conditions, 0);
  ++next_batch_;
  return b;
}

}  // namespace medsynth
