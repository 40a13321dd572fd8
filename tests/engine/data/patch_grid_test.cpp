// Grid patches of large volumes and the stitch back (patch_grid.hpp), and the
// per-rank patch source of the VQ-GAN (patch_batch_source.hpp).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "config/job_spec.hpp"
#include "core/error.hpp"
#include "data/patch_batch_source.hpp"
#include "data/patch_grid.hpp"
#include "data/volume_dataset.hpp"

namespace medsynth {
namespace {

TEST(PatchGrid, SeedVolumeGivesEightyPatchesWithPaddingAtTheBorder) {
  // Seed 002: 512 x 512 x 604 CTPA, 128^3 patches, stride 128 -> 4 x 4 x 5.
  PatchGridOptions o;
  const PatchGrid grid = make_patch_grid({604, 512, 512}, o);
  EXPECT_EQ(grid.size(), 80u);
  EXPECT_EQ(grid.padded, (Index3{640, 512, 512}));
  EXPECT_EQ(grid.origins.back(), (Index3{512, 384, 384}));
}

TEST(PatchGrid, StrideLargerThanPatchIsRefusedByName) {
  PatchGridOptions o;
  o.patch = {16, 16, 16};
  o.stride = {16, 20, 16};
  try {
    o.validate();
    FAIL() << "accepted a stride above the patch";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("data.patch_stride"), std::string::npos) << e.what();
  }
}

TEST(PatchGrid, StitchingNonOverlappingPatchesIsExact) {
  at::manual_seed(3);
  at::Tensor image = at::rand({1, 1, 37, 29, 23});
  PatchGridOptions o;
  o.patch = {16, 16, 16};
  o.stride = {16, 16, 16};
  const PatchGrid grid = make_patch_grid({37, 29, 23}, o);
  EXPECT_EQ(grid.size(), 3u * 2u * 2u);
  for (PatchBlend blend : {PatchBlend::constant, PatchBlend::gaussian}) {
    PatchStitcher stitcher(grid, 1, blend, at::TensorOptions());
    for (std::size_t i = 0; i < grid.size(); ++i) stitcher.add(i, extract_patch(image, grid, i, -5.0));
    at::Tensor back = stitcher.result();
    EXPECT_EQ(back.sizes(), (std::vector<std::int64_t>{1, 37, 29, 23}));
    EXPECT_TRUE(at::equal(back, image[0])) << "max diff " << (back - image[0]).abs().max().item<double>();
  }
}

TEST(PatchGrid, OverlappingPatchesBlendBackWithinTolerance) {
  at::manual_seed(4);
  at::Tensor image = at::rand({1, 1, 40, 40, 40});
  PatchGridOptions o;
  o.patch = {16, 16, 16};
  o.stride = {8, 8, 8};
  const PatchGrid grid = make_patch_grid({40, 40, 40}, o);
  EXPECT_EQ(grid.size(), 4u * 4u * 4u);
  // Identity "model": blending identical values returns them (up to float rounding).
  PatchStitcher identity(grid, 1, PatchBlend::gaussian, at::TensorOptions());
  for (std::size_t i = 0; i < grid.size(); ++i) identity.add(i, extract_patch(image, grid, i, 0.0));
  EXPECT_LT((identity.result() - image[0]).abs().max().item<double>(), 1e-5);
  // A model with an error that grows towards patch borders: Gaussian blending
  // down-weights borders, so the stitched error is below the plain average's.
  auto border_error = [&](const at::Tensor& patch) {
    at::Tensor r = at::arange(16, at::kFloat);
    at::Tensor edge = at::minimum(r, 15 - r);
    at::Tensor d = at::minimum(at::minimum(edge.view({-1, 1, 1}), edge.view({1, -1, 1})), edge.view({1, 1, -1}));
    return patch + 0.1 * at::exp(-d);
  };
  double errors[2];
  int k = 0;
  for (PatchBlend blend : {PatchBlend::constant, PatchBlend::gaussian}) {
    PatchStitcher s(grid, 1, blend, at::TensorOptions());
    for (std::size_t i = 0; i < grid.size(); ++i) s.add(i, border_error(extract_patch(image, grid, i, 0.0)));
    errors[k++] = (s.result() - image[0]).abs().mean().item<double>();
  }
  // Without blending (one patch per voxel) the error would be the patch mean.
  const double unblended = border_error(at::zeros({1, 16, 16, 16})).mean().item<double>();
  EXPECT_LT(errors[1], errors[0]);
  EXPECT_LT(errors[1], 0.8 * unblended) << "constant " << errors[0] << ", unblended " << unblended;
}

TEST(PatchGrid, ForegroundFilterDropsAirPatches) {
  at::Tensor image = at::zeros({1, 1, 32, 32, 32});
  image.slice(2, 0, 16).fill_(0.6);  // lower half in z is "body"
  PatchGridOptions o;
  o.patch = {16, 16, 16};
  o.stride = {16, 16, 16};
  const PatchGrid grid = make_patch_grid({32, 32, 32}, o);
  EXPECT_EQ(foreground_patches(image, grid, 0.1, 0.0).size(), 8u);
  const auto kept = foreground_patches(image, grid, 0.1, 0.5);
  ASSERT_EQ(kept.size(), 4u);
  for (auto i : kept) EXPECT_EQ(grid.origins[i][0], 0);
}

DataSpec phantoms(int n) {
  DataSpec d;
  d.num_train = n;
  d.num_val = 1;
  d.phantom_size = {32, 32, 32};
  d.phantom_spacing = {8, 8, 8};
  d.num_workers = 0;
  return d;
}

TEST(PatchBatchSource, EachRankTakesItsOwnVolumesAndEveryGridPatchOnce) {
  const DataSpec d = phantoms(3);
  VolumeDataset dataset(d, "train", 42);
  PatchSourceOptions o;
  o.grid.patch = {16, 16, 16};
  o.grid.stride = {16, 16, 16};
  o.batch_size = 2;
  std::set<std::string> all;
  for (int rank = 0; rank < 2; ++rank) {
    o.rank = rank;
    o.world_size = 2;
    PatchBatchSource source(dataset, o);
    std::set<std::size_t> items;
    for (const auto& [item, index] : source.patches()) items.insert(item);
    EXPECT_EQ(items, (rank == 0 ? std::set<std::size_t>{0, 2} : std::set<std::size_t>{1}));
    source.start_epoch(1);
    std::set<std::string> seen;
    std::vector<std::size_t> sequence;
    while (auto batch = source.next()) {
      EXPECT_EQ(batch->images.sizes(), (std::vector<std::int64_t>{2, 1, 16, 16, 16}));
      for (const auto& id : batch->ids) EXPECT_TRUE(seen.insert(id).second) << "patch served twice: " << id;
      sequence.insert(sequence.end(), batch->items.begin(), batch->items.end());
    }
    // Volume by volume: a volume's patches are consecutive (read once per epoch).
    int switches = 0;
    for (std::size_t i = 1; i < sequence.size(); ++i) switches += sequence[i] != sequence[i - 1];
    EXPECT_EQ(switches, static_cast<int>(items.size()) - 1);
    EXPECT_EQ(static_cast<int>(seen.size()), source.batches_per_epoch() * 2);
    all.insert(seen.begin(), seen.end());
  }
  EXPECT_EQ(all.size(), 16u + 8u);
}

TEST(PatchBatchSource, EpochOrderIsDeterministicAndResumesAtAnyBatch) {
  VolumeDataset dataset(phantoms(2), "train", 42);
  PatchSourceOptions o;
  o.grid.patch = {16, 16, 16};
  o.grid.stride = {16, 16, 16};
  PatchBatchSource a(dataset, o), b(dataset, o);
  a.start_epoch(2);
  std::vector<std::string> order;
  std::vector<at::Tensor> images;
  while (auto batch = a.next()) {
    order.push_back(batch->ids[0]);
    images.push_back(batch->images);
  }
  ASSERT_EQ(order.size(), 16u);
  b.start_epoch(2, 5);
  for (std::size_t i = 5; i < order.size(); ++i) {
    auto batch = b.next();
    ASSERT_TRUE(batch);
    EXPECT_EQ(batch->ids[0], order[i]);
    EXPECT_TRUE(at::equal(batch->images, images[i]));
  }
  EXPECT_FALSE(b.next());
  a.start_epoch(3);
  std::vector<std::string> other;
  while (auto batch = a.next()) other.push_back(batch->ids[0]);
  EXPECT_NE(order, other) << "epochs should be shuffled differently";
}

TEST(PatchBatchSource, AgreedCountEvensOutRanks) {
  VolumeDataset dataset(phantoms(2), "train", 42);
  PatchSourceOptions o;
  o.grid.patch = {16, 16, 16};
  o.grid.stride = {16, 16, 16};
  PatchBatchSource source(dataset, o, [](std::int64_t n) { return n - 3; });
  EXPECT_EQ(source.batches_per_epoch(), 16 - 3);
}

}  // namespace
}  // namespace medsynth
