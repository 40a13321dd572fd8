// Intensity and spatial transforms against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "data/intensity_transforms.hpp"
#include "data/preprocess.hpp"
#include "data/spatial_transforms.hpp"

namespace medsynth {
namespace {

Volume line_volume(const std::vector<float>& values) {
  Volume v = make_volume({values.size(), 1, 1});
  v.voxels = values;
  return v;
}

TEST(CtWindow, MapsMinus1000To0And0ToHalfAnd1000To1AndClips) {
  Volume v = line_volume({-3000.0f, -1000.0f, -500.0f, 0.0f, 500.0f, 1000.0f, 2500.0f});
  apply_ct_window(v, -1000.0, 1000.0);
  const std::vector<float> expected{0.0f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.0f};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(v.voxels[i], expected[i]) << "voxel " << i;
}

TEST(CtWindow, OtherWindowAndInvalidWindow) {
  Volume v = line_volume({-160.0f, 40.0f, 240.0f});  // a soft-tissue window [-160, 240]
  apply_ct_window(v, -160.0, 240.0);
  EXPECT_FLOAT_EQ(v.voxels[1], 0.5f);
  EXPECT_THROW(apply_ct_window(v, 100.0, 100.0), ConfigError);
}

TEST(Percentiles, InterpolateLinearlyBetweenRanks) {
  std::vector<float> ramp;
  for (int i = 0; i <= 100; ++i) ramp.push_back(float(i));  // 0..100: the q-th percentile is q
  const Volume v = line_volume(ramp);
  EXPECT_DOUBLE_EQ(volume_percentile(v, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(volume_percentile(v, 25.5), 25.5);
  EXPECT_DOUBLE_EQ(volume_percentile(v, 100.0), 100.0);
  const Volume even = line_volume({4.0f, 1.0f, 3.0f, 2.0f});  // numpy: median 2.5
  EXPECT_DOUBLE_EQ(volume_percentile(even, 50.0), 2.5);
}

TEST(Percentiles, NormaliseARampToZeroOneAndClip) {
  std::vector<float> ramp;
  for (int i = 0; i <= 100; ++i) ramp.push_back(float(i));
  Volume v = line_volume(ramp);
  normalize_percentiles(v, 10.0, 90.0);  // 10 -> 0, 90 -> 1
  EXPECT_FLOAT_EQ(v.voxels[0], 0.0f);
  EXPECT_FLOAT_EQ(v.voxels[10], 0.0f);
  EXPECT_FLOAT_EQ(v.voxels[30], 0.25f);
  EXPECT_FLOAT_EQ(v.voxels[50], 0.5f);
  EXPECT_FLOAT_EQ(v.voxels[90], 1.0f);
  EXPECT_FLOAT_EQ(v.voxels[100], 1.0f);
}

TEST(Percentiles, ConstantVolumeBecomesZerosNotNaN) {
  Volume v = make_volume({4, 3, 2});
  std::fill(v.voxels.begin(), v.voxels.end(), 7.5f);
  normalize_percentiles(v, 0.5, 99.5);
  for (float x : v.voxels) EXPECT_EQ(x, 0.0f);
  EXPECT_THROW(normalize_percentiles(v, 60.0, 40.0), ConfigError);
}

// NV-Generate's MR preparation (ScaleIntensityRangePercentiles lower 0,
// upper 99.5, b_min 0, b_max 1, clip False), through the job's preprocessing:
// 1000 voxels 0..996 and three of 5000. numpy's 99.5th percentile is at rank
// 0.995 x 999 = 994.005, so 5000 maps to 5000 / 994.005, not to 1.
TEST(Percentiles, NvGeneratesMrScalingKeepsVoxelsAboveTheUpperPercentile) {
  std::vector<float> values;
  for (int i = 0; i < 997; ++i) values.push_back(float((i * 37) % 997));  // 0..996, shuffled
  values.insert(values.begin() + 400, {5000.0f, 5000.0f, 5000.0f});
  DataSpec spec;
  spec.modality = Modality::mri;
  spec.mri_percentiles = {0.0, 99.5};
  spec.mri_clip = false;
  const Volume out = preprocess_volume(line_volume(values), spec, "phantom");
  const double hi = 994.005;
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(out.voxels[i], values[i] / hi, 1e-6) << "voxel " << i;
  EXPECT_GT(out.voxels[400], 5.0f);
  spec.mri_clip = true;  // medsynth's default clamps to [0, 1]
  EXPECT_EQ(preprocess_volume(line_volume(values), spec, "phantom").voxels[400], 1.0f);
}

// A volume whose value is a linear function of the physical position.
Volume linear_field(std::array<std::size_t, 3> size, std::array<double, 3> spacing) {
  Volume v = make_volume(size, spacing);
  v.origin = {10.0, -5.0, 2.0};
  for (std::size_t z = 0; z < size[2]; ++z)
    for (std::size_t y = 0; y < size[1]; ++y)
      for (std::size_t x = 0; x < size[0]; ++x)
        v.at(x, y, z) = float(3.0 * x * spacing[0] + 2.0 * y * spacing[1] - 1.0 * z * spacing[2]);
  return v;
}

TEST(Resample, LinearRampStaysLinearAndGeometryIsKept) {
  const Volume in = linear_field({20, 6, 5}, {1.0, 2.0, 3.0});
  const Volume out = resample_to_spacing(in, {2.0, 1.0, 1.5});
  EXPECT_EQ(out.size, (std::array<std::size_t, 3>{10, 12, 10}));  // extent 20, 12, 15 mm kept
  EXPECT_EQ(out.spacing, (std::array<double, 3>{2.0, 1.0, 1.5}));
  EXPECT_EQ(out.origin, in.origin);
  EXPECT_EQ(out.direction, in.direction);
  std::size_t checked = 0;
  for (std::size_t z = 0; z < out.size[2]; ++z)
    for (std::size_t y = 0; y < out.size[1]; ++y)
      for (std::size_t x = 0; x < out.size[0]; ++x) {
        const double px = x * 2.0, py = y * 1.0, pz = z * 1.5;  // mm from voxel 0
        if (px > 19.0 || py > 10.0 || pz > 12.0) continue;      // beyond the last input voxel: edge value
        EXPECT_NEAR(out.at(x, y, z), 3.0 * px + 2.0 * py - pz, 1e-4) << x << "," << y << "," << z;
        ++checked;
      }
  EXPECT_GT(checked, 800u);
}

TEST(Resample, SameSpacingIsAnExactCopyAndBadSpacingIsRefused) {
  const Volume in = linear_field({5, 4, 3}, {1.0, 1.0, 2.0});
  const Volume out = resample_to_spacing(in, {1.0, 1.0, 2.0});
  EXPECT_EQ(out.voxels, in.voxels);
  EXPECT_THROW(resample_to_spacing(in, {1.0, 0.0, 1.0}), ConfigError);
}

TEST(CropOrPad, OneVoxelThickVolumeIsPaddedWithItsMinimumAroundTheSlice) {
  Volume v = make_volume({4, 4, 1}, {1.0, 1.0, 2.5});
  for (std::size_t i = 0; i < 16; ++i) v.voxels[i] = float(i + 1);  // minimum 1
  const Volume out = crop_or_pad(v, {4, 4, 5});
  ASSERT_EQ(out.size, (std::array<std::size_t, 3>{4, 4, 5}));
  for (std::size_t z = 0; z < 5; ++z)
    for (std::size_t y = 0; y < 4; ++y)
      for (std::size_t x = 0; x < 4; ++x) EXPECT_EQ(out.at(x, y, z), z == 2 ? v.at(x, y, 0) : 1.0f);
  EXPECT_DOUBLE_EQ(out.origin[2], v.origin[2] - 2 * 2.5);  // the slice keeps its physical position
}

TEST(CropOrPad, CropsCentredAndPadsOddAmountsWithTheExtraVoxelAfter) {
  Volume v = make_volume({6, 3, 1});
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = float(i + 5);  // minimum 5
  const Volume out = crop_or_pad(v, {4, 6, 1});  // x: crop 1 each side; y: pad 1 before, 2 after
  EXPECT_EQ(out.at(0, 1, 0), v.at(1, 0, 0));
  EXPECT_EQ(out.at(3, 3, 0), v.at(4, 2, 0));
  EXPECT_EQ(out.at(0, 0, 0), 5.0f);
  EXPECT_EQ(out.at(2, 4, 0), 5.0f);
  EXPECT_EQ(out.at(2, 5, 0), 5.0f);
  EXPECT_DOUBLE_EQ(out.origin[0], 1.0);
  EXPECT_DOUBLE_EQ(out.origin[1], -1.0);
}

TEST(Patches, RandomPlacementCoversEveryFittingPositionAndFlipsAboutHalf) {
  const std::array<std::size_t, 3> size{10, 8, 3};
  const std::array<int, 3> patch{4, 8, 5};  // x: 7 positions, y: exactly 1, z: smaller than the volume
  std::array<int, 7> seen{};
  int flips = 0;
  for (std::uint64_t i = 0; i < 700; ++i) {
    CounterRng rng({99, i});
    const PatchPlacement p = random_patch_placement(size, patch, true, rng);
    ASSERT_GE(p.start[0], 0);
    ASSERT_LE(p.start[0], 6);
    ++seen[std::size_t(p.start[0])];
    EXPECT_EQ(p.start[1], 0);
    EXPECT_EQ(p.start[2], -1);  // 2 voxels of padding: 1 before, 1 after
    flips += p.flip[0] + p.flip[1] + p.flip[2];
  }
  for (int count : seen) EXPECT_GT(count, 50);
  EXPECT_NEAR(flips / 2100.0, 0.5, 0.05);
  CounterRng rng({1});
  EXPECT_EQ(random_patch_placement(size, patch, false, rng).flip, (std::array<bool, 3>{false, false, false}));
}

TEST(Patches, ExtractedPatchMatchesTheVolumeAndFlipsMirror) {
  Volume v = make_volume({5, 4, 3});
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = float(i);
  PatchPlacement p;
  p.start = {1, 2, 0};
  const Volume patch = extract_patch(v, p, {3, 2, 3});
  EXPECT_EQ(patch.at(0, 0, 0), v.at(1, 2, 0));
  EXPECT_EQ(patch.at(2, 1, 2), v.at(3, 3, 2));
  EXPECT_DOUBLE_EQ(patch.origin[0], 1.0);
  EXPECT_DOUBLE_EQ(patch.origin[1], 2.0);

  p.flip = {true, false, true};
  Volume flipped = extract_patch(v, p, {3, 2, 3});
  flip_axis(flipped, 0);
  flip_axis(flipped, 2);
  EXPECT_EQ(flipped.voxels, patch.voxels);
}

TEST(Patches, FlipAxisReversesOneAxisOnly) {
  Volume v = make_volume({3, 2, 2});
  for (std::size_t i = 0; i < v.voxels.size(); ++i) v.voxels[i] = float(i);
  const Volume original = v;
  flip_axis(v, 1);
  EXPECT_EQ(v.at(2, 0, 1), original.at(2, 1, 1));
  EXPECT_EQ(v.at(0, 1, 0), original.at(0, 0, 0));
  flip_axis(v, 1);
  EXPECT_EQ(v.voxels, original.voxels);
}

// NV-Generate's preparation of MAISI training data: Orientationd(RAS) and a
// trilinear Resized to the nearest multiple of 128 (issue 34).

// The LPS position of voxel (i, j, k).
std::array<double, 3> world(const Volume& v, std::size_t i, std::size_t j, std::size_t k) {
  const std::array<double, 3> index{double(i), double(j), double(k)};
  std::array<double, 3> p = v.origin;
  for (int w = 0; w < 3; ++w)
    for (int a = 0; a < 3; ++a) p[w] += v.direction[w * 3 + a] * index[a] * v.spacing[a];
  return p;
}

// Every voxel of `out` holds the value `in` has at the same physical position.
void expect_same_image(const Volume& in, const Volume& out) {
  ASSERT_EQ(in.voxel_count(), out.voxel_count());
  for (std::size_t k = 0; k < out.size[2]; ++k)
    for (std::size_t j = 0; j < out.size[1]; ++j)
      for (std::size_t i = 0; i < out.size[0]; ++i) {
        const auto p = world(out, i, j, k);
        std::array<long, 3> at{};
        for (int a = 0; a < 3; ++a) {
          double d = 0;
          for (int w = 0; w < 3; ++w) d += in.direction[w * 3 + a] * (p[w] - in.origin[w]);
          at[a] = std::lround(d / in.spacing[a]);
        }
        ASSERT_EQ(out.at(i, j, k), in.at(std::size_t(at[0]), std::size_t(at[1]), std::size_t(at[2])))
            << i << "," << j << "," << k;
      }
}

Volume numbered(std::array<std::size_t, 3> size, std::array<double, 3> spacing) {
  Volume v = make_volume(size, spacing);
  for (std::size_t n = 0; n < v.voxels.size(); ++n) v.voxels[n] = float(n);
  v.origin = {10.0, -20.0, 30.0};
  return v;
}

TEST(Reorient, AnLpsVolumeBecomesRasByMirroringXAndYInPlace) {
  const Volume in = numbered({3, 4, 5}, {1.0, 2.0, 3.0});
  const Volume out = reorient(in, "RAS");
  EXPECT_EQ(out.size, in.size);
  EXPECT_EQ(out.direction, (std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1}));
  EXPECT_EQ(out.at(0, 0, 0), in.at(2, 3, 0));
  expect_same_image(in, out);
  EXPECT_EQ(reorient(out, "LPS").voxels, in.voxels) << "and back";
  EXPECT_EQ(reorient(in, "LPS").voxels, in.voxels) << "already LPS: unchanged";
}

TEST(Reorient, PermutedAxesAreReorderedToTheCodesDirections) {
  Volume in = numbered({3, 4, 5}, {1.0, 2.0, 3.0});
  // Stored axis 0 runs superior, 1 left, 2 anterior (columns of the matrix).
  in.direction = {0, 1, 0, 0, 0, -1, 1, 0, 0};
  const Volume out = reorient(in, "RAS");
  EXPECT_EQ(out.size, (std::array<std::size_t, 3>{4, 5, 3}));
  EXPECT_EQ(out.spacing, (std::array<double, 3>{2.0, 3.0, 1.0}));
  EXPECT_EQ(out.direction, (std::array<double, 9>{-1, 0, 0, 0, -1, 0, 0, 0, 1}));
  expect_same_image(in, out);
  EXPECT_THROW(reorient(in, "RAR"), ConfigError);
  EXPECT_THROW(reorient(in, "XY"), ConfigError);
}

TEST(ResizeToMultiple, SizesRoundAsNvGeneratesRoundNumberAndKeepTheExtent) {
  // round(40 / 16) = 2 (Python rounds halves to even), round(24 / 16) = 2,
  // round(8 / 16) = 0 -> at least one multiple.
  const Volume in = make_volume({40, 24, 8}, {1.0, 2.0, 0.5});
  const Volume out = resize_to_multiple(in, 16);
  EXPECT_EQ(out.size, (std::array<std::size_t, 3>{32, 32, 16}));
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(out.spacing[a] * double(out.size[a]), in.spacing[a] * double(in.size[a]), 1e-9) << "extent along " << a;
  // The first voxel's centre sits half a new voxel inside the old first edge.
  EXPECT_NEAR(out.origin[0], -0.5 + 0.5 * out.spacing[0], 1e-9);
  EXPECT_EQ(resize_to_multiple(in, 0).voxels, in.voxels);
  EXPECT_EQ(resize_to_multiple(make_volume({32, 16, 16}), 16).size, (std::array<std::size_t, 3>{32, 16, 16}));
}

TEST(ResizeToMultiple, ValuesAreTorchsLinearInterpolationWithoutAlignCorners) {
  // torch.nn.functional.interpolate([0, 1, 2, 3], size=8, mode="linear").
  const Volume out = resize_to_multiple(line_volume({0.0f, 1.0f, 2.0f, 3.0f}), 8);
  ASSERT_EQ(out.size[0], 8u);
  const std::vector<float> expected{0.0f, 0.25f, 0.75f, 1.25f, 1.75f, 2.25f, 2.75f, 3.0f};
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(out.voxels[i], expected[i]) << "voxel " << i;
}

}  // namespace
}  // namespace medsynth
