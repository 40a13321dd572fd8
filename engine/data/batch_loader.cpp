#include "data/batch_loader.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "data/case_grids.hpp"
#include "data/counter_rng.hpp"
#include "data/spatial_transforms.hpp"

namespace medsynth {
namespace {

constexpr std::uint64_t k_shuffle_stream = 0x73687566666C65ull;  // "shuffle"
constexpr std::uint64_t k_patch_stream = 0x7061746368ull;        // "patch"
constexpr std::uint64_t k_noise_stream = 0x6E6F697365ull;        // "noise"

void check_options(const LoaderOptions& o) {
  std::vector<FieldError> errors;
  auto bad = [&](const char* path, const std::string& reason) { errors.push_back({path, reason}); };
  if (o.batch_size < 1) bad("training.batch_size", "must be >= 1 (got " + std::to_string(o.batch_size) + ")");
  for (int s : o.patch_size) {
    if (s < 1) bad("data.patch_size", "every size must be >= 1 (got " + std::to_string(s) + ")");
  }
  if (o.world_size < 1) bad("loader.world_size", "must be >= 1 (got " + std::to_string(o.world_size) + ")");
  if (o.rank < 0 || o.rank >= std::max(o.world_size, 1))
    bad("loader.rank", "must be in [0, world_size) (got " + std::to_string(o.rank) + ")");
  if (o.num_workers < 0) bad("data.num_workers", "must be >= 0 (got " + std::to_string(o.num_workers) + ")");
  if (o.prefetch < 0) bad("data.prefetch", "must be >= 0 (got " + std::to_string(o.prefetch) + ")");
  if (!errors.empty()) throw ConfigError(std::move(errors), "loader");
}

}  // namespace

BatchLoader::BatchLoader(const VolumeDataset& dataset, LoaderOptions options,
                         std::vector<const VolumeDataset*> more_channels)
    : dataset_(dataset), more_channels_(std::move(more_channels)), options_(options) {
  check_options(options_);
  for (const VolumeDataset* channel : more_channels_)
    if (channel->size() != dataset_.size())
      throw RuntimeError("BatchLoader: a channel dataset has " + std::to_string(channel->size()) +
                         " items, the first " + std::to_string(dataset_.size()));
  const std::size_t per_rank = rank_samples(0).size();
  const std::size_t b = std::size_t(options_.batch_size);
  batches_per_epoch_ = int(options_.drop_last ? per_rank / b : (per_rank + b - 1) / b);
  if (batches_per_epoch_ == 0) {
    throw ConfigError({{"training.batch_size",
                        "the " + dataset_.split() + " split has " + std::to_string(dataset_.size()) +
                            " volumes: not one batch of " + std::to_string(b) + " for each of " +
                            std::to_string(options_.world_size) + " ranks" + (options_.drop_last ? " (drop_last)" : "")}},
                      "loader");
  }
  try {
    for (int i = 0; i < options_.num_workers; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {
    stop_workers();  // the destructor does not run for a half-built loader
    throw;
  }
}

BatchLoader::~BatchLoader() { stop_workers(); }

void BatchLoader::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

std::vector<BatchLoader::Sample> BatchLoader::rank_samples(int epoch) const {
  const std::size_t n = dataset_.size();
  const auto world = std::size_t(options_.world_size);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  if (options_.shuffle) {
    CounterRng rng({options_.base_seed, k_shuffle_stream, std::uint64_t(std::int64_t(epoch))});
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  }
  // DistributedSampler: drop the tail, or repeat from the start, so every rank gets as many.
  const std::size_t total = options_.drop_last ? n / world * world : (n + world - 1) / world * world;
  if (total <= n) {
    order.resize(total);
  } else {
    for (std::size_t k = n; k < total; ++k) order.push_back(order[k % n]);
  }
  std::vector<Sample> mine;
  for (std::size_t p = std::size_t(options_.rank); p < total; p += world) mine.push_back({p, order[p]});
  return mine;
}

std::vector<std::size_t> BatchLoader::epoch_indices(int epoch) const {
  std::vector<std::size_t> items;
  for (const Sample& s : rank_samples(epoch)) items.push_back(s.item);
  return items;
}

std::vector<BatchLoader::Sample> BatchLoader::batch_samples(int batch) const {
  const std::size_t b = std::size_t(options_.batch_size);
  const std::size_t begin = std::size_t(batch) * b;
  const std::size_t end = std::min(samples_.size(), begin + b);
  return {samples_.begin() + std::ptrdiff_t(begin), samples_.begin() + std::ptrdiff_t(end)};
}

Batch BatchLoader::build_batch(int epoch, int batch, const std::vector<Sample>& samples) const {
  const auto& k = options_.patch_size;
  const std::int64_t patch_voxels = std::int64_t(k[0]) * k[1] * k[2];
  Batch out;
  out.index = batch;
  const std::int64_t channels = 1 + std::int64_t(more_channels_.size());
  out.images =
      at::empty({std::int64_t(samples.size()), channels, k[2], k[1], k[0]}, at::TensorOptions().dtype(at::kFloat));
  float* dst = out.images.data_ptr<float>();
  for (std::size_t s = 0; s < samples.size(); ++s) {
    const std::shared_ptr<const Volume> volume = dataset_.share(samples[s].item);
    CounterRng rng({options_.base_seed, k_patch_stream, std::uint64_t(std::int64_t(epoch)), samples[s].position});
    const PatchPlacement placement = random_patch_placement(volume->size, k, options_.random_flip, rng);
    float* sample = dst + std::int64_t(s) * channels * patch_voxels;
    copy_patch(*volume, placement, k, sample);
    for (std::size_t c = 0; c < more_channels_.size(); ++c) {
      const std::shared_ptr<const Volume> other = more_channels_[c]->share(samples[s].item);
      check_contrast_grid(*other, *volume, *more_channels_[c], dataset_, samples[s].item);
      copy_patch(*other, placement, k, sample + std::int64_t(c + 1) * patch_voxels);
    }
    out.ids.push_back(dataset_.id(samples[s].item));
    out.items.push_back(samples[s].item);
    out.sample_keys.push_back(CounterRng({options_.base_seed, k_noise_stream, std::uint64_t(std::int64_t(epoch)), samples[s].position}).next());
  }
  return out;
}

void BatchLoader::start_epoch(int epoch, int skip_batches) {
  if (skip_batches < 0) throw UsageError("start_epoch: skip_batches must be >= 0 (got " + std::to_string(skip_batches) + ")");
  std::vector<Sample> samples = rank_samples(epoch);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
    started_ = true;
    epoch_ = epoch;
    samples_ = std::move(samples);
    next_claim_ = next_deliver_ = std::min(skip_batches, batches_per_epoch_);
    ready_.clear();
  }
  work_cv_.notify_all();
}

std::optional<Batch> BatchLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!started_) throw RuntimeError("BatchLoader::next() called before start_epoch()");
  if (next_deliver_ >= batches_per_epoch_) return std::nullopt;
  const int batch = next_deliver_;
  if (workers_.empty()) {
    const std::vector<Sample> samples = batch_samples(batch);
    const int epoch = epoch_;
    ++next_deliver_;
    next_claim_ = next_deliver_;
    lock.unlock();
    return build_batch(epoch, batch, samples);
  }
  ready_cv_.wait(lock, [&] { return ready_.count(batch) > 0; });
  Result result = std::move(ready_.at(batch));
  ready_.erase(batch);
  ++next_deliver_;
  lock.unlock();
  work_cv_.notify_all();  // room for one more batch ahead
  if (result.error) std::rethrow_exception(result.error);
  return std::move(result.batch);
}

void BatchLoader::worker_loop() {
  const int ahead = std::max(options_.prefetch, options_.num_workers);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] {
      return stopping_ || (started_ && next_claim_ < batches_per_epoch_ && next_claim_ < next_deliver_ + ahead);
    });
    if (stopping_) return;
    const int batch = next_claim_++;
    const int epoch = epoch_;
    const std::uint64_t generation = generation_;
    const std::vector<Sample> samples = batch_samples(batch);
    lock.unlock();
    Result result;
    try {
      result.batch = build_batch(epoch, batch, samples);
    } catch (...) {
      result.error = std::current_exception();
    }
    lock.lock();
    if (generation == generation_) {
      ready_[batch] = std::move(result);
      ready_cv_.notify_all();
    }
  }
}

}  // namespace medsynth
