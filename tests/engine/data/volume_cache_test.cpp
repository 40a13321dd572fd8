// The cache: the first round(cache_rate * N) items are loaded once, the rest
// on every access; concurrent readers load a cached item once; eager fill in
// parallel; failed loads are retried.
#include "data/volume_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "data/volume_dataset.hpp"
#include "data_fixtures.hpp"
#include "support/temp_dir.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

// Counts loads per item; item i is a 2x2x2 volume filled with i.
struct CountingLoader {
  std::vector<std::atomic<int>> loads;
  explicit CountingLoader(std::size_t n) : loads(n) {}
  VolumeCache::Loader fn() {
    return [this](std::size_t i) {
      ++loads[i];
      Volume v = make_volume({2, 2, 2});
      std::fill(v.voxels.begin(), v.voxels.end(), float(i));
      return v;
    };
  }
};

TEST(VolumeCache, HalfCachedItemsLoadOnceTheOthersOnEveryAccess) {
  CountingLoader counter(4);
  VolumeCache cache(4, 0.5, counter.fn());
  EXPECT_EQ(cache.cached_count(), 2u);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(cache.get(i)->voxels[0], float(i));
  }
  EXPECT_EQ(counter.loads[0], 1);
  EXPECT_EQ(counter.loads[1], 1);
  EXPECT_EQ(counter.loads[2], 3);
  EXPECT_EQ(counter.loads[3], 3);
  EXPECT_EQ(cache.filled_count(), 2u);
  EXPECT_THROW(cache.get(4), RuntimeError);
}

TEST(VolumeCache, RateRoundsAndIsValidated) {
  CountingLoader counter(5);
  EXPECT_EQ(VolumeCache(5, 0.5, counter.fn()).cached_count(), 3u);  // round(2.5)
  EXPECT_EQ(VolumeCache(5, 0.0, counter.fn()).cached_count(), 0u);
  EXPECT_EQ(VolumeCache(5, 1.0, counter.fn()).cached_count(), 5u);
  EXPECT_THROW(VolumeCache(5, 1.5, counter.fn()), ConfigError);
}

TEST(VolumeCache, ConcurrentReadersLoadACachedItemOnce) {
  CountingLoader counter(6);
  VolumeCache cache(6, 0.5, counter.fn());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 5; ++round)
        for (std::size_t i = 0; i < 6; ++i) cache.get(i);
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(counter.loads[i], 1) << i;
  for (std::size_t i = 3; i < 6; ++i) EXPECT_EQ(counter.loads[i], 20) << i;
}

TEST(VolumeCache, FillLoadsCachedItemsInParallelAndReportsTheFirstFailure) {
  CountingLoader counter(8);
  VolumeCache cache(8, 0.75, counter.fn());
  cache.fill(3);
  EXPECT_EQ(cache.filled_count(), 6u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(counter.loads[i], i < 6 ? 1 : 0);

  std::atomic<int> failures{0};
  VolumeCache failing(4, 1.0, [&](std::size_t i) -> Volume {
    if (i == 1 || i == 3) {
      ++failures;
      throw DataError("item" + std::to_string(i) + ".nii.gz", "truncated");
    }
    return make_volume({1, 1, 1});
  });
  try {
    failing.fill(2);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), "item1.nii.gz");  // the lowest failing index, whatever the thread timing
  }
  EXPECT_EQ(failing.filled_count(), 2u);
  EXPECT_THROW(failing.get(1), DataError);  // not remembered as loaded: tried again
  EXPECT_EQ(failures, 3);
}

TEST(VolumeCache, DatasetWithHalfCacheReadsHalfTheFilesOnce) {
  test::TempDir dir("data-cache");
  for (const char* name : {"a", "b", "c", "d"}) test::write_small_ct(dir / (std::string(name) + ".nii.gz"), 0.0f);
  std::mutex mutex;
  std::map<std::string, int> reads;
  DataSpec spec;
  spec.source = DataSource::folder;
  spec.path = dir.path().string();
  spec.val_fraction = 0.0;
  spec.cache_rate = 0.5;
  const VolumeDataset ds(spec, "train", 0, [&](const std::string& path) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++reads[std::filesystem::path(path).filename().string()];
    }
    return read_volume(path);
  });
  ASSERT_EQ(ds.size(), 4u);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < ds.size(); ++i) {
      const Volume& v = ds.get(i);
      EXPECT_EQ(v.voxel_count(), 120u);
      EXPECT_NEAR(v.voxels[0], 0.5, 1e-6);
    }
  }
  EXPECT_EQ(reads["a.nii.gz"], 1);
  EXPECT_EQ(reads["b.nii.gz"], 1);
  EXPECT_EQ(reads["c.nii.gz"], 3);
  EXPECT_EQ(reads["d.nii.gz"], 3);
}

}  // namespace
}  // namespace medsynth
