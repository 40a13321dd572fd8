// The CT phantom: determinism (seed, thread count), variation between seeds,
// plausible tissue proportions and placement, and the same anatomy at another
// resolution of the same field of view.
#include "data/ct_phantom.hpp"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/error.hpp"

namespace medsynth {
namespace {

double mean_abs_diff(const Volume& a, const Volume& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.voxels.size(); ++i) sum += std::abs(double(a.voxels[i]) - b.voxels[i]);
  return sum / double(a.voxels.size());
}

bool bit_identical(const Volume& a, const Volume& b) {
  return a.size == b.size && a.voxels.size() == b.voxels.size() &&
         std::memcmp(a.voxels.data(), b.voxels.data(), a.voxels.size() * sizeof(float)) == 0;
}

// Fraction of voxels with lo <= value < hi.
double fraction(const Volume& v, double lo, double hi) {
  std::size_t n = 0;
  for (float x : v.voxels) n += (x >= lo && x < hi) ? 1 : 0;
  return double(n) / double(v.voxels.size());
}

TEST(CtPhantom, SameSeedAndOptionsGiveBitIdenticalVoxelsOnAnyThreadCount) {
  const PhantomOptions options{{24, 20, 16}, {10.0, 12.0, 15.0}, 10.0};
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const Volume one_thread = make_ct_phantom(1234, options);
  at::set_num_threads(std::max(2, threads));
  const Volume many_threads = make_ct_phantom(1234, options);
  const Volume again = make_ct_phantom(1234, options);
  at::set_num_threads(threads);
  EXPECT_TRUE(bit_identical(one_thread, many_threads));
  EXPECT_TRUE(bit_identical(many_threads, again));
}

TEST(CtPhantom, DifferentSeedsGiveDifferentAnatomy) {
  const PhantomOptions quiet{{32, 32, 32}, {8.0, 8.0, 8.0}, 0.0};  // no noise: differences are anatomy
  const Volume a = make_ct_phantom(1, quiet);
  const Volume b = make_ct_phantom(2, quiet);
  // Organ borders move by a few mm: many voxels change by far more than noise would.
  std::size_t changed = 0;
  for (std::size_t i = 0; i < a.voxels.size(); ++i) changed += std::abs(a.voxels[i] - b.voxels[i]) > 50.0f ? 1 : 0;
  EXPECT_GT(double(changed) / double(a.voxels.size()), 0.01);
}

TEST(CtPhantom, NoiseHasTheRequestedStandardDeviation) {
  PhantomOptions options{{32, 32, 32}, {8.0, 8.0, 8.0}, 0.0};
  const Volume clean = make_ct_phantom(5, options);
  options.noise_hu = 25.0;
  const Volume noisy = make_ct_phantom(5, options);
  double sum = 0, sum2 = 0;
  for (std::size_t i = 0; i < clean.voxels.size(); ++i) {
    const double d = double(noisy.voxels[i]) - clean.voxels[i];
    sum += d;
    sum2 += d * d;
  }
  const double n = double(clean.voxels.size());
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 0.5);
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), 25.0, 0.5);
}

TEST(CtPhantom, TissuesArePresentInPlausibleProportions) {
  const Volume v = make_ct_phantom(42, PhantomOptions{});  // 64^3 at 4 mm, 10 HU noise
  ASSERT_EQ(v.voxel_count(), 64u * 64u * 64u);
  const double air = fraction(v, -1e9, -950);
  const double lung = fraction(v, -920, -700);
  const double fat = fraction(v, -140, -60);
  const double soft = fraction(v, -20, 100);
  const double bone = fraction(v, 300, 1e9);
  EXPECT_GT(air, 0.30);
  EXPECT_LT(air, 0.70);
  EXPECT_GT(lung, 0.02);
  EXPECT_LT(lung, 0.20);
  EXPECT_GT(fat, 0.02);
  EXPECT_LT(fat, 0.20);
  EXPECT_GT(soft, 0.15);
  EXPECT_LT(soft, 0.60);
  EXPECT_GT(bone, 0.003);
  EXPECT_LT(bone, 0.08);
  // Nothing outside what a CT of a torso holds.
  EXPECT_GT(fraction(v, -1100, 1200), 0.9999);
}

TEST(CtPhantom, AnatomyIsWhereATorsoHasIt) {
  const Volume v = make_ct_phantom(7, PhantomOptions{{64, 64, 64}, {4.0, 4.0, 4.0}, 0.0});
  // Corners are air; the body covers most of the z extent.
  EXPECT_LT(v.at(0, 0, 32), -990.0f);
  int slices_with_body = 0;
  for (std::size_t z = 0; z < 64; ++z) slices_with_body += v.at(32, 32, z) > -500.0f ? 1 : 0;
  EXPECT_GE(slices_with_body, 52);
  // Inside the trunk (away from the skin and the end caps): lungs lie in the
  // superior half (+z), bone mostly posterior (+y in LPS).
  std::size_t lung_upper = 0, lung_lower = 0, bone_posterior = 0, bone_all = 0;
  for (std::size_t z = 4; z < 60; ++z) {
    for (std::size_t y = 20; y < 44; ++y) {
      for (std::size_t x = 12; x < 52; ++x) {
        const float hu = v.at(x, y, z);
        if (hu < -700.0f && hu > -930.0f) (z >= 32 ? lung_upper : lung_lower) += 1;
        if (hu > 300.0f) {
          ++bone_all;
          bone_posterior += y >= 32 ? 1 : 0;
        }
      }
    }
  }
  EXPECT_GT(lung_upper, 2000u);
  EXPECT_GT(lung_upper, 5 * lung_lower);
  ASSERT_GT(bone_all, 0u);
  EXPECT_GT(double(bone_posterior) / double(bone_all), 0.6);
}

// What a scanner with the coarse grid would record from the fine phantom: the
// 2x2x2 block average, then the phantom's [1 2 1]/4 point-spread function.
Volume coarse_scan_of(const Volume& fine) {
  const std::array<std::size_t, 3> n{fine.size[0] / 2, fine.size[1] / 2, fine.size[2] / 2};
  Volume v = make_volume(n, {fine.spacing[0] * 2, fine.spacing[1] * 2, fine.spacing[2] * 2});
  for (std::size_t z = 0; z < n[2]; ++z)
    for (std::size_t y = 0; y < n[1]; ++y)
      for (std::size_t x = 0; x < n[0]; ++x) {
        double s = 0;
        for (int k = 0; k < 8; ++k) s += fine.at(2 * x + (k & 1), 2 * y + ((k >> 1) & 1), 2 * z + (k >> 2));
        v.at(x, y, z) = float(s / 8);
      }
  for (int axis = 0; axis < 3; ++axis) {
    const Volume in = v;
    for (std::size_t z = 0; z < n[2]; ++z)
      for (std::size_t y = 0; y < n[1]; ++y)
        for (std::size_t x = 0; x < n[0]; ++x) {
          std::array<std::size_t, 3> lo{x, y, z}, hi{x, y, z};
          if (lo[axis] > 0) --lo[axis];
          if (hi[axis] + 1 < n[axis]) ++hi[axis];
          v.at(x, y, z) = 0.25f * in.at(lo[0], lo[1], lo[2]) + 0.5f * in.at(x, y, z) + 0.25f * in.at(hi[0], hi[1], hi[2]);
        }
  }
  return v;
}

TEST(CtPhantom, SameSeedAtAnotherResolutionIsTheSameAnatomyResampled) {
  // The same 256 mm field of view at 8 mm and at 4 mm.
  const PhantomOptions coarse_grid{{32, 32, 32}, {8.0, 8.0, 8.0}, 0.0};
  const Volume coarse = make_ct_phantom(9, coarse_grid);
  const Volume fine = make_ct_phantom(9, PhantomOptions{{64, 64, 64}, {4.0, 4.0, 4.0}, 0.0});
  EXPECT_EQ(coarse.origin, (std::array<double, 3>{-124.0, -124.0, -124.0}));
  EXPECT_EQ(fine.origin, (std::array<double, 3>{-126.0, -126.0, -126.0}));
  const double same = mean_abs_diff(coarse, coarse_scan_of(fine));
  double closest_other = 1e9;
  for (std::uint64_t other = 10; other < 14; ++other) {
    closest_other = std::min(closest_other, mean_abs_diff(coarse, make_ct_phantom(other, coarse_grid)));
  }
  // Left over: the fine phantom's own, narrower point-spread function.
  EXPECT_LT(same, 0.6 * closest_other) << "same seed " << same << " HU, closest other seed " << closest_other << " HU";
}

TEST(CtPhantom, OneVoxelThickPhantomIsASliceOfTheBody) {
  const Volume v = make_ct_phantom(3, PhantomOptions{{32, 32, 1}, {8.0, 8.0, 8.0}, 0.0});
  EXPECT_EQ(v.voxel_count(), 32u * 32u);
  EXPECT_GT(fraction(v, -200, 200), 0.2);  // the mid-torso slice is mostly tissue
}

TEST(CtPhantom, InvalidOptionsNameTheirField) {
  try {
    make_ct_phantom(1, PhantomOptions{{0, 8, 8}, {1.0, -1.0, 1.0}, -2.0});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    std::string paths;
    for (const auto& f : e.errors()) paths += f.path + " ";
    EXPECT_NE(paths.find("data.phantom_size"), std::string::npos);
    EXPECT_NE(paths.find("data.phantom_spacing"), std::string::npos);
    EXPECT_NE(paths.find("data.noise_hu"), std::string::npos);
  }
}

}  // namespace
}  // namespace medsynth
