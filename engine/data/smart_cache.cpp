#include "data/smart_cache.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.hpp"
#include "data/counter_rng.hpp"

namespace medsynth {

SmartCache::SmartCache(std::vector<std::size_t> items, Loader loader, SmartCacheOptions options)
    : order_(std::move(items)), loader_(std::move(loader)), options_(options) {
  if (order_.empty()) throw UsageError("smart cache: no items");
  if (!(options_.cache_rate > 0 && options_.cache_rate <= 1)) throw UsageError("data.cache_rate: must be in (0, 1] for the smart cache");
  if (!(options_.replace_rate >= 0 && options_.replace_rate <= 1)) throw UsageError("data.replace_rate: must be in [0, 1]");
  const std::size_t n = order_.size();
  cache_num_ = std::clamp<std::size_t>(static_cast<std::size_t>(std::floor(n * options_.cache_rate)), 1, n);
  replace_num_ = std::min(static_cast<std::size_t>(std::floor(cache_num_ * options_.replace_rate)), n - cache_num_);
  CounterRng rng({options_.seed, 0x736d617274ull});  // "smart"
  for (std::size_t i = n; i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
}

SmartCache::~SmartCache() { join(); }

void SmartCache::join() {
  if (worker_.joinable()) worker_.join();
}

std::vector<std::size_t> SmartCache::window(int epoch) const {
  const std::size_t n = order_.size();
  const std::size_t start = (static_cast<std::size_t>(std::max(epoch, 0)) * replace_num_) % n;
  std::vector<std::size_t> w;
  for (std::size_t k = 0; k < cache_num_; ++k) w.push_back(order_[(start + k) % n]);
  return w;
}

std::size_t SmartCache::loads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return loads_;
}

const std::vector<std::size_t>& SmartCache::set_epoch(int epoch) {
  join();
  if (epoch == epoch_) return current_;
  const std::vector<std::size_t> wanted = window(epoch);
  std::map<std::size_t, at::Tensor> next;
  std::size_t arrived = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t item : wanted) {
      if (auto it = cache_.find(item); it != cache_.end()) {
        next[item] = it->second;
      } else {
        ++arrived;
        if (auto p = pending_.find(item); p != pending_.end() && prefetched_epoch_ == epoch) next[item] = p->second;
      }
    }
    pending_.clear();
  }
  for (std::size_t item : wanted)
    if (!next.count(item)) {  // not prefetched (first epoch, a resume, or a skipped epoch)
      at::Tensor t = loader_(item);
      std::lock_guard<std::mutex> lock(mutex_);
      ++loads_;
      next[item] = std::move(t);
    }
  if (epoch_ >= 0) replaced_ += arrived;
  cache_ = std::move(next);
  current_ = wanted;
  epoch_ = epoch;
  // Load the next epoch's arrivals while this epoch trains.
  std::vector<std::size_t> arrivals;
  for (std::size_t item : window(epoch + 1))
    if (!cache_.count(item)) arrivals.push_back(item);
  prefetched_epoch_ = epoch + 1;
  auto fetch = [this, arrivals] {
    for (std::size_t item : arrivals) {
      at::Tensor t = loader_(item);
      std::lock_guard<std::mutex> lock(mutex_);
      ++loads_;
      pending_[item] = std::move(t);
    }
  };
  if (arrivals.empty()) return current_;
  if (options_.background) worker_ = std::thread(fetch);
  else fetch();
  return current_;
}

const at::Tensor& SmartCache::get(std::size_t item) const {
  auto it = cache_.find(item);
  if (it == cache_.end()) throw UsageError("smart cache: item " + std::to_string(item) + " is not in epoch " + std::to_string(epoch_) + "'s cache");
  return it->second;
}

}  // namespace medsynth
