// The validation slices: which voxels each plane shows and where (a swapped
// axis or an upside-down coronal view fails here), the [0, 1] -> 0..255 map,
// and the input | gap | output layout.
#include <gtest/gtest.h>

#include "train/validation_images.hpp"

namespace medsynth {
namespace {

// 5 x 4 x 3 voxels whose value names its position: (x + 10 y + 100 z) / 255.
Volume labelled_volume() {
  Volume v = make_volume({5, 4, 3});
  for (std::size_t z = 0; z < 3; ++z)
    for (std::size_t y = 0; y < 4; ++y)
      for (std::size_t x = 0; x < 5; ++x) v.at(x, y, z) = static_cast<float>(x + 10 * y + 100 * z) / 255.0f;
  return v;
}

int label(int x, int y, int z) { return x + 10 * y + 100 * z; }

TEST(ValidationImages, AxialIsTheMiddleZSliceAsStored) {
  const GrayImage axial = middle_slice(labelled_volume(), SlicePlane::axial);
  ASSERT_EQ(axial.width, 5);
  ASSERT_EQ(axial.height, 4);
  for (int row = 0; row < 4; ++row)
    for (int column = 0; column < 5; ++column) EXPECT_EQ(axial.at(column, row), label(column, row, 1));
}

TEST(ValidationImages, CoronalAndSagittalHaveTheHighestZAtTheTop) {
  const Volume v = labelled_volume();
  const GrayImage coronal = middle_slice(v, SlicePlane::coronal);  // y = 2
  ASSERT_EQ(coronal.width, 5);
  ASSERT_EQ(coronal.height, 3);
  EXPECT_EQ(coronal.at(0, 0), label(0, 2, 2));
  EXPECT_EQ(coronal.at(4, 2), label(4, 2, 0));
  const GrayImage sagittal = middle_slice(v, SlicePlane::sagittal);  // x = 2
  ASSERT_EQ(sagittal.width, 4);
  ASSERT_EQ(sagittal.height, 3);
  EXPECT_EQ(sagittal.at(0, 0), label(2, 0, 2));
  EXPECT_EQ(sagittal.at(3, 1), label(2, 3, 1));
}

TEST(ValidationImages, IntensitiesOutsideZeroToOneAreClipped) {
  Volume v = make_volume({1, 1, 1});
  v.voxels = {-0.5f};
  EXPECT_EQ(middle_slice(v, SlicePlane::axial).at(0, 0), 0);
  v.voxels = {1.5f};
  EXPECT_EQ(middle_slice(v, SlicePlane::axial).at(0, 0), 255);
  v.voxels = {0.5f};
  EXPECT_EQ(middle_slice(v, SlicePlane::axial).at(0, 0), 128);
}

TEST(ValidationImages, InputThenAWhiteGapThenOutputForEachPlane) {
  const Volume input = labelled_volume();
  Volume output = input;
  for (float& x : output.voxels) x = 0.0f;
  const ValidationImages images = validation_images("case-7", input, output);
  EXPECT_EQ(images.item, "case-7");
  ASSERT_EQ(images.planes.size(), 3u);
  EXPECT_EQ(to_string(images.planes[0].plane), "axial");
  EXPECT_EQ(to_string(images.planes[1].plane), "coronal");
  EXPECT_EQ(to_string(images.planes[2].plane), "sagittal");
  const GrayImage& axial = images.planes[0].image;
  ASSERT_EQ(axial.width, 5 + k_side_by_side_gap + 5);
  ASSERT_EQ(axial.height, 4);
  for (int row = 0; row < 4; ++row) {
    EXPECT_EQ(axial.at(4, row), label(4, row, 1));
    EXPECT_EQ(axial.at(5, row), 255);
    EXPECT_EQ(axial.at(5 + k_side_by_side_gap - 1, row), 255);
    EXPECT_EQ(axial.at(5 + k_side_by_side_gap, row), 0);
  }
}

}  // namespace
}  // namespace medsynth
