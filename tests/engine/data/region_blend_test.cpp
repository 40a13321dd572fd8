// The voxel arithmetic of generate --inpaint (data/region_blend.hpp) on
// shapes whose answers are counted by hand: a region from a mask or from
// some classes, the box it grows into, a blend that keeps every other voxel
// bit for bit, and the seam measured on a cube.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.hpp"
#include "data/region_blend.hpp"

namespace medsynth {
namespace {

std::int64_t count(const std::vector<std::uint8_t>& region) {
  std::int64_t n = 0;
  for (auto v : region) n += v;
  return n;
}

TEST(RegionBlend, ARegionIsTheMasksNonzeroVoxelsOrTheNamedClasses) {
  Volume mask = make_volume({6, 5, 4});
  mask.at(1, 1, 1) = 3;
  mask.at(2, 2, 2) = 5;
  mask.at(4, 3, 0) = 3;
  EXPECT_EQ(count(region_of(mask, {}, "mask.nii.gz")), 3);
  const auto threes = region_of(mask, {3}, "mask.nii.gz");
  EXPECT_EQ(count(threes), 2);
  EXPECT_EQ(threes[mask.index(2, 2, 2)], 0);
  EXPECT_EQ(count(region_of(mask, {5, 3}, "mask.nii.gz")), 3);
  try {
    region_of(mask, {9}, "mask.nii.gz");
    FAIL() << "an empty region was taken";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("mask.nii.gz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("class 9"), std::string::npos) << e.what();
  }
}

TEST(RegionBlend, AVoxelGrowsIntoABoxClippedAtTheEdges) {
  const std::array<std::size_t, 3> size{9, 8, 7};
  Volume grid = make_volume(size);
  std::vector<std::uint8_t> region(grid.voxels.size(), 0);
  region[grid.index(4, 4, 3)] = 1;
  const auto grown = dilate_region(region, size, 2);
  EXPECT_EQ(count(grown), 125);  // 5 x 5 x 5
  EXPECT_EQ(grown[grid.index(2, 2, 1)], 1);
  EXPECT_EQ(grown[grid.index(1, 4, 3)], 0);
  EXPECT_EQ(grown[grid.index(6, 6, 5)], 1);
  EXPECT_EQ(grown[grid.index(7, 6, 5)], 0);
  std::vector<std::uint8_t> corner(grid.voxels.size(), 0);
  corner[grid.index(0, 0, 0)] = 1;
  EXPECT_EQ(count(dilate_region(corner, size, 2)), 27);  // 3 x 3 x 3 inside the grid
  EXPECT_EQ(dilate_region(region, size, 0), region);
}

TEST(RegionBlend, OutsideTheRegionEveryVoxelIsTheSourcesBitForBit) {
  Volume source = make_volume({5, 4, 3});
  Volume generated = source;
  for (std::size_t i = 0; i < source.voxels.size(); ++i) {
    source.voxels[i] = -1000.0f + 0.1f * static_cast<float>(i) + 1e-3f;
    generated.voxels[i] = 42.5f;
  }
  source.origin = {1, 2, 3};
  std::vector<std::uint8_t> region(source.voxels.size(), 0);
  region[7] = region[8] = 1;
  const Volume out = blend_region(source, generated, region);
  EXPECT_EQ(out.origin, source.origin);
  for (std::size_t i = 0; i < out.voxels.size(); ++i) {
    const float want = region[i] ? 42.5f : source.voxels[i];
    EXPECT_EQ(std::memcmp(&out.voxels[i], &want, sizeof(float)), 0) << "voxel " << i;
  }
  Volume other = make_volume({5, 4, 2});
  EXPECT_THROW(blend_region(source, other, region), RuntimeError);
}

TEST(RegionBlend, TheSeamIsTheMeanStepAcrossTheRegionsBorder) {
  // A 2 x 2 x 2 cube of 100 HU in a field of 0 HU: 24 faces touch the outside.
  Volume source = make_volume({6, 6, 6});
  Volume result = source;
  std::vector<std::uint8_t> region(source.voxels.size(), 0);
  for (std::size_t z = 2; z < 4; ++z)
    for (std::size_t y = 2; y < 4; ++y)
      for (std::size_t x = 2; x < 4; ++x) {
        region[source.index(x, y, z)] = 1;
        result.at(x, y, z) = 100.0f;
        source.at(x, y, z) = 10.0f;
      }
  result.at(2, 2, 2) = 10.0f;  // one voxel of the region as it was
  const SeamMeasure m = measure_seam(source, result, region);
  EXPECT_EQ(m.pairs, 24);
  EXPECT_EQ(m.region_voxels, 8);
  EXPECT_EQ(m.changed_voxels, 7);
  EXPECT_DOUBLE_EQ(m.source_step, 10.0);
  EXPECT_DOUBLE_EQ(m.result_step, (21 * 100.0 + 3 * 10.0) / 24.0);
}

}  // namespace
}  // namespace medsynth
