#include "data/volume_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

VolumeCache::VolumeCache(std::size_t count, double cache_rate, Loader loader)
    : count_(count), cached_count_(0), loader_(std::move(loader)) {
  if (!(cache_rate >= 0.0 && cache_rate <= 1.0)) {
    throw ConfigError({{"data.cache_rate", "must be in [0, 1] (got " + std::to_string(cache_rate) + ")"}});
  }
  // round(), as the job documents it; MONAI truncates (int(N * cache_rate)).
  cached_count_ = std::min(count_, static_cast<std::size_t>(std::llround(double(count_) * cache_rate)));
  slots_ = std::make_unique<Slot[]>(cached_count_);
}

VolumeCache::~VolumeCache() = default;

std::size_t VolumeCache::filled_count() const {
  std::size_t n = 0;
  for (std::size_t i = 0; i < cached_count_; ++i) {
    std::lock_guard<std::mutex> lock(slots_[i].mutex);
    n += slots_[i].volume ? 1 : 0;
  }
  return n;
}

std::shared_ptr<const Volume> VolumeCache::get(std::size_t i) const {
  if (i >= count_) {
    throw RuntimeError("VolumeCache::get: item " + std::to_string(i) + " of " + std::to_string(count_));
  }
  if (i >= cached_count_) return std::make_shared<const Volume>(loader_(i));
  Slot& slot = slots_[i];
  // Held while loading: a second reader of the same item waits instead of loading it twice.
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (!slot.volume) slot.volume = std::make_shared<const Volume>(loader_(i));
  return slot.volume;
}

void VolumeCache::fill(int num_workers) const {
  std::vector<std::exception_ptr> errors(cached_count_);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < cached_count_; i = next++) {
      try {
        get(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::size_t(std::max(num_workers, 0)), cached_count_);
  if (threads == 0) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(threads);
    try {
      for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    } catch (...) {
      next = cached_count_;  // stop the threads already started, then report
      for (auto& t : pool) t.join();
      throw;
    }
    for (auto& t : pool) t.join();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace medsynth
