// Keeps preprocessed volumes in memory with MONAI CacheDataset semantics: the
// first round(cache_rate * N) items are loaded once (lazily on first access,
// or eagerly by fill()) and kept; the others are loaded again on every
// access. Owned by VolumeDataset; the batch loader's worker threads and the
// trainer's validation read through it concurrently.
//
// Threading: every method may be called from any thread. A cached item is
// loaded at most once even when several threads ask for it at the same time
// (the others wait for it); different items load in parallel. A load that
// throws leaves the item empty, so the next access tries again.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

#include "volume/volume.hpp"

namespace medsynth {

class VolumeCache {
 public:
  // Loads (reads and preprocesses) item i; must be safe to call concurrently for different items.
  using Loader = std::function<Volume(std::size_t)>;

  // cache_rate in [0, 1]; throws ConfigError (data.cache_rate) otherwise.
  VolumeCache(std::size_t count, double cache_rate, Loader loader);
  ~VolumeCache();
  VolumeCache(const VolumeCache&) = delete;
  VolumeCache& operator=(const VolumeCache&) = delete;

  std::size_t size() const { return count_; }
  std::size_t cached_count() const { return cached_count_; }
  bool is_cached(std::size_t i) const { return i < cached_count_; }
  // How many cached items are in memory now.
  std::size_t filled_count() const;

  // Item i: the kept copy for cached items, a fresh load otherwise. The
  // loader's exceptions propagate. Throws RuntimeError for i >= size().
  std::shared_ptr<const Volume> get(std::size_t i) const;

  // Loads every cached item not yet in memory, with num_workers threads
  // (0: in the calling thread). If loads fail, the error of the lowest item
  // index is rethrown after all threads have finished.
  void fill(int num_workers) const;

 private:
  struct Slot {
    std::mutex mutex;
    std::shared_ptr<const Volume> volume;
  };
  std::size_t count_;
  std::size_t cached_count_;
  Loader loader_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace medsynth
