// The batch loader: batches independent of the worker count, resumable at any
// batch, disjoint between ranks, reshuffled per epoch, patches cut from the
// right place, worker errors delivered in order; and the tensor conversions.
#include "data/batch_loader.hpp"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "data_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

std::vector<Batch> whole_epoch(BatchLoader& loader, int epoch, int skip = 0) {
  loader.start_epoch(epoch, skip);
  std::vector<Batch> out;
  while (auto b = loader.next()) out.push_back(std::move(*b));
  return out;
}

void expect_same_batches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].ids, b[i].ids);
    EXPECT_EQ(a[i].items, b[i].items);
    EXPECT_TRUE(at::equal(a[i].images, b[i].images)) << "batch " << a[i].index;
  }
}

LoaderOptions small_options(int workers) {
  LoaderOptions o;
  o.batch_size = 3;
  o.patch_size = {8, 8, 8};
  o.base_seed = 11;
  o.num_workers = workers;
  o.prefetch = 2;
  return o;
}

TEST(BatchLoader, BatchesAreIdenticalWithZeroOneAndThreeWorkers) {
  const VolumeDataset ds(test::tiny_simulated_spec(10, 1), "train", 5);
  std::vector<std::vector<Batch>> runs;
  for (int workers : {0, 1, 3}) {
    BatchLoader loader(ds, small_options(workers));
    EXPECT_EQ(loader.batches_per_epoch(), 4);  // 10 samples, batches of 3, last one short
    std::vector<Batch> epochs = whole_epoch(loader, 0);
    for (auto& b : whole_epoch(loader, 1)) epochs.push_back(std::move(b));
    runs.push_back(std::move(epochs));
  }
  ASSERT_EQ(runs[0].size(), 8u);
  EXPECT_EQ(runs[0][0].images.sizes(), (std::vector<std::int64_t>{3, 1, 8, 8, 8}));
  EXPECT_EQ(runs[0][3].images.size(0), 1);
  EXPECT_EQ(runs[0][0].images.scalar_type(), at::kFloat);
  expect_same_batches(runs[0], runs[1]);
  expect_same_batches(runs[0], runs[2]);
}

TEST(BatchLoader, ResumingAtSkipBatchesGivesTheSameRemainingBatches) {
  const VolumeDataset ds(test::tiny_simulated_spec(10, 1), "train", 5);
  BatchLoader loader(ds, small_options(2));
  const std::vector<Batch> full = whole_epoch(loader, 3);
  // A fresh loader, as after a restart, and one that was interrupted mid-epoch.
  BatchLoader resumed(ds, small_options(2));
  const std::vector<Batch> tail = whole_epoch(resumed, 3, 2);
  ASSERT_EQ(tail.size(), 2u);
  expect_same_batches({full.begin() + 2, full.end()}, tail);
  loader.start_epoch(3);
  ASSERT_TRUE(loader.next().has_value());
  expect_same_batches({full.begin() + 1, full.end()}, whole_epoch(loader, 3, 1));
  EXPECT_TRUE(whole_epoch(loader, 3, 4).empty());
  EXPECT_THROW(loader.start_epoch(3, -1), UsageError);
}

TEST(BatchLoader, EachEpochIsAnotherPermutationUnlessShuffleIsOff) {
  const VolumeDataset ds(test::tiny_simulated_spec(12, 1), "train", 5);
  LoaderOptions o = small_options(0);
  BatchLoader loader(ds, o);
  std::set<std::vector<std::size_t>> orders;
  for (int epoch = 0; epoch < 4; ++epoch) {
    std::vector<std::size_t> order = loader.epoch_indices(epoch);
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), 12u);  // a permutation
    orders.insert(order);
  }
  EXPECT_EQ(orders.size(), 4u);
  EXPECT_EQ(loader.epoch_indices(2), BatchLoader(ds, o).epoch_indices(2));  // from (base_seed, epoch) only
  o.shuffle = false;
  const std::vector<std::size_t> in_order = BatchLoader(ds, o).epoch_indices(7);
  for (std::size_t i = 0; i < in_order.size(); ++i) EXPECT_EQ(in_order[i], i);
}

TEST(BatchLoader, TwoRanksGetDisjointIndicesThatCoverTheDataset) {
  const VolumeDataset ds(test::tiny_simulated_spec(9, 1), "train", 5);
  LoaderOptions o = small_options(0);
  o.world_size = 2;
  for (bool drop_last : {false, true}) {
    o.drop_last = drop_last;
    o.rank = 0;
    const std::vector<std::size_t> r0 = BatchLoader(ds, o).epoch_indices(1);
    o.rank = 1;
    const std::vector<std::size_t> r1 = BatchLoader(ds, o).epoch_indices(1);
    ASSERT_EQ(r0.size(), r1.size());
    EXPECT_EQ(r0.size(), drop_last ? 4u : 5u);
    const std::set<std::size_t> s0(r0.begin(), r0.end()), s1(r1.begin(), r1.end());
    std::set<std::size_t> both;
    for (std::size_t i : s0) both.insert(i);
    for (std::size_t i : s1) both.insert(i);
    if (drop_last) {
      EXPECT_EQ(both.size(), 8u);  // disjoint, one sample dropped
    } else {
      EXPECT_EQ(both.size(), 9u);  // all covered; rank 1's last is the repeated first sample
      EXPECT_EQ(r1.back(), r0.front());
    }
    // Apart from the padding repeat, no sample is seen by both ranks.
    const std::size_t own = drop_last ? r1.size() : r1.size() - 1;
    for (std::size_t i = 0; i < own; ++i) EXPECT_EQ(s0.count(r1[i]), 0u) << r1[i];
  }
}

TEST(BatchLoader, PatchesAreBlocksOfTheVolumeWithSmallAxesPadded) {
  test::TempDir dir("data-loader");
  // A ramp that is unique per voxel: 10x9x4 voxels, all inside the CT window.
  Volume ramp = make_volume({10, 9, 4});
  for (std::size_t i = 0; i < ramp.voxels.size(); ++i) ramp.voxels[i] = -900.0f + float(i) * 4.0f;
  write_volume(ramp, (dir / "ramp.nii.gz").string());
  DataSpec spec;
  spec.source = DataSource::folder;
  spec.path = dir.path().string();
  spec.val_fraction = 0.0;
  const VolumeDataset ds(spec, "train", 0);
  LoaderOptions o = small_options(1);
  o.batch_size = 1;
  o.patch_size = {4, 9, 6};  // z: 4 voxels into 6 -> one padding slice on each side
  o.random_flip = false;
  BatchLoader loader(ds, o);
  std::set<std::int64_t> starts;
  for (int epoch = 0; epoch < 20; ++epoch) {
    const Batch b = whole_epoch(loader, epoch).at(0);
    const at::Tensor patch = b.images[0][0];  // [Z, Y, X]
    const auto p = patch.accessor<float, 3>();
    const Volume& v = ds.get(0);
    const float first = p[1][0][0];
    const auto start_index = std::find(v.voxels.begin(), v.voxels.end(), first) - v.voxels.begin();
    ASSERT_LT(start_index, 10);  // in the first row of slice 0: y and z starts are fixed
    starts.insert(start_index);
    for (std::int64_t z = 0; z < 6; ++z)
      for (std::int64_t y = 0; y < 9; ++y)
        for (std::int64_t x = 0; x < 4; ++x) {
          const float expected = (z == 0 || z == 5) ? v.voxels[0] /* minimum */ : v.at(start_index + x, y, z - 1);
          ASSERT_EQ(p[z][y][x], expected) << z << "," << y << "," << x;
        }
  }
  EXPECT_GT(starts.size(), 3u);  // several of the 7 x positions drawn
}

TEST(BatchLoader, WorkerErrorsAreRethrownInOrderAndDestructionStopsCleanly) {
  test::TempDir dir("data-loader-errors");
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) test::write_small_ct(dir / (std::string(name) + ".nii.gz"), 0.0f);
  DataSpec spec;
  spec.source = DataSource::folder;
  spec.path = dir.path().string();
  spec.val_fraction = 0.0;
  spec.cache_rate = 0.0;
  const VolumeDataset ds(spec, "train", 0, [](const std::string& path) {
    if (path.find("d.nii.gz") != std::string::npos) throw DataError(path, "went missing");
    return read_volume(path);
  });
  LoaderOptions o = small_options(3);
  o.batch_size = 1;
  o.patch_size = {4, 4, 4};
  o.shuffle = false;
  {
    BatchLoader loader(ds, o);
    loader.start_epoch(0);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(loader.next()->ids.at(0), std::string(1, char('a' + i)));
    try {
      loader.next();
      FAIL() << "the failing item was delivered";
    } catch (const DataError& e) {
      EXPECT_NE(e.path().find("d.nii.gz"), std::string::npos);
    }
    EXPECT_EQ(loader.next()->ids.at(0), "e");
    // Leaves with batches prepared and workers busy: the destructor must stop them.
    loader.start_epoch(1);
  }
  BatchLoader unstarted(ds, o);
  EXPECT_THROW(unstarted.next(), RuntimeError);
}

TEST(BatchLoader, OptionsAreValidated) {
  const VolumeDataset ds(test::tiny_simulated_spec(2, 1), "train", 5);
  LoaderOptions o = small_options(0);
  o.batch_size = 0;
  EXPECT_THROW(BatchLoader(ds, o), ConfigError);
  o = small_options(0);
  o.rank = 2;
  o.world_size = 2;
  EXPECT_THROW(BatchLoader(ds, o), ConfigError);
  o = small_options(0);
  o.drop_last = true;  // 2 volumes, batch of 3: no full batch
  EXPECT_THROW(BatchLoader(ds, o), ConfigError);
}

TEST(VolumeTensor, RoundTripKeepsVoxelsAndGeometry) {
  Volume v = make_volume({4, 3, 2}, {1.0, 2.0, 3.0});
  v.origin = {5.0, 6.0, 7.0};
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = float(i) * 0.5f;
  const at::Tensor t = volume_to_tensor(v);
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{1, 1, 2, 3, 4}));
  EXPECT_EQ(t[0][0][1][2][3].item<float>(), v.at(3, 2, 1));
  t.mul_(2.0);  // a copy: the volume is untouched
  EXPECT_EQ(v.at(1, 0, 0), 0.5f);

  const Volume back = tensor_to_volume(t, v);
  EXPECT_EQ(back.size, v.size);
  EXPECT_EQ(back.origin, v.origin);
  EXPECT_EQ(back.spacing, v.spacing);
  EXPECT_EQ(back.at(3, 2, 1), 2.0f * v.at(3, 2, 1));
  EXPECT_EQ(tensor_to_volume(t[0][0].to(at::kDouble), v).voxels, back.voxels);
  EXPECT_THROW(tensor_to_volume(at::zeros({1, 1, 2, 4, 3}), v), RuntimeError);
}

TEST(VolumeTensor, MovedVolumeIsNotCopied) {
  Volume v = make_volume({8, 8, 8});
  v.voxels[5] = 3.0f;
  const float* data = v.voxels.data();
  const at::Tensor t = volume_to_tensor(std::move(v));
  EXPECT_EQ(t.data_ptr<float>(), data);
  EXPECT_EQ(t.flatten()[5].item<float>(), 3.0f);
}

}  // namespace
}  // namespace medsynth
