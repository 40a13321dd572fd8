// MONAI's SmartCacheDataset for one rank's items: the cache holds cache_num =
// floor(N x cache_rate) of them and each epoch replaces replace_num =
// floor(cache_num x replace_rate) (at most N - cache_num): the oldest ones
// leave, the next ones in a seeded order arrive. While an epoch trains on the
// cache, a background thread already loads the items of the next epoch's
// replacement, so the swap at the epoch boundary costs no loading time.
//
// Deterministic and resumable: epoch e's cache is the window
// order[e x replace_num, e x replace_num + cache_num) of a circular order
// shuffled by `seed`, whatever happened before; set_epoch(e) after a restart
// loads exactly that window. Used by the survival task (seed 004).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace medsynth {

struct SmartCacheOptions {
  double cache_rate = 1.0;    // MONAI's cache_rate
  double replace_rate = 0.1;  // MONAI's replace_rate
  std::uint64_t seed = 0;
  bool background = true;     // false: replacements load inside set_epoch (tests, benchmarks)
};

class SmartCache {
 public:
  using Loader = std::function<at::Tensor(std::size_t item)>;
  // Throws UsageError for rates outside [0, 1] or an empty item list.
  SmartCache(std::vector<std::size_t> items, Loader loader, SmartCacheOptions options);
  ~SmartCache();
  SmartCache(const SmartCache&) = delete;
  SmartCache& operator=(const SmartCache&) = delete;

  // Makes the cache hold epoch `epoch`'s window and returns its items; starts
  // loading the next epoch's replacements in the background.
  const std::vector<std::size_t>& set_epoch(int epoch);
  // An item of the current window (UsageError otherwise).
  const at::Tensor& get(std::size_t item) const;
  std::vector<std::size_t> window(int epoch) const;

  std::size_t cache_num() const { return cache_num_; }
  std::size_t replace_num() const { return replace_num_; }
  // Loader calls so far (including background ones) and items replaced by set_epoch.
  std::size_t loads() const;
  std::size_t replaced() const { return replaced_; }

 private:
  void join();
  std::vector<std::size_t> order_;
  Loader loader_;
  SmartCacheOptions options_;
  std::size_t cache_num_ = 0, replace_num_ = 0;
  std::map<std::size_t, at::Tensor> cache_;
  std::vector<std::size_t> current_;
  int epoch_ = -1;
  // Background prefetch of the next epoch's arrivals.
  std::thread worker_;
  int prefetched_epoch_ = -1;
  std::map<std::size_t, at::Tensor> pending_;
  mutable std::mutex mutex_;
  std::size_t loads_ = 0, replaced_ = 0;
};

}  // namespace medsynth
