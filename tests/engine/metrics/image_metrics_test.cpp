// PSNR and 3D SSIM against values worked out by hand or by a plain-loop
// reference written here.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "metrics/image_metrics.hpp"

namespace medsynth {
namespace {

at::Tensor random_volume(std::vector<std::int64_t> shape, std::uint64_t seed) {
  at::manual_seed(seed);
  return at::rand(shape, at::kDouble);
}

TEST(Psnr, ConstantOffsetIsExactlyTwentyDecibels) {
  const auto x = random_volume({1, 1, 8, 8, 8}, 1) * 0.8;
  // MSE = 0.01 on range 1: 10 log10(1 / 0.01) = 20.
  EXPECT_NEAR(psnr(x, x + 0.1), 20.0, 1e-9);
  EXPECT_NEAR(psnr(x, x - 0.1), 20.0, 1e-9);
  // Range 2: + 20 log10(2).
  EXPECT_NEAR(psnr(x, x + 0.1, 2.0), 20.0 + 20.0 * std::log10(2.0), 1e-9);
  // Half the voxels off by 0.2: MSE = 0.02.
  auto y = x.clone();
  y.flatten().slice(0, 0, 256).add_(0.2);
  EXPECT_NEAR(psnr(x, y), 10.0 * std::log10(1.0 / 0.02), 1e-9);
  // float32 inputs are promoted: close to the exact value.
  EXPECT_NEAR(psnr(x.to(at::kFloat), (x + 0.1).to(at::kFloat)), 20.0, 1e-4);
}

TEST(Psnr, IdenticalIsInfinite) {
  const auto x = random_volume({2, 1, 4, 4, 4}, 2);
  EXPECT_EQ(psnr(x, x), std::numeric_limits<double>::infinity());
}

TEST(Psnr, PerSample) {
  const auto x = random_volume({2, 1, 4, 4, 4}, 3);
  auto y = x.clone();
  y[0].add_(0.1);
  y[1].add_(0.01);
  const auto v = psnr_per_sample(x, y);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0], 20.0, 1e-9);
  EXPECT_NEAR(v[1], 40.0, 1e-9);
}

TEST(Psnr, RejectsMismatchedShapesAndBadRange) {
  EXPECT_THROW(psnr(at::zeros({2, 2}), at::zeros({4})), UsageError);
  EXPECT_THROW(psnr(at::zeros({2, 2}), at::zeros({2, 2}), 0.0), UsageError);
}

TEST(Ssim, IdenticalVolumesScoreOne) {
  const auto x = random_volume({2, 1, 16, 16, 16}, 4);
  EXPECT_NEAR(ssim3d(x, x), 1.0, 1e-12);
  for (double v : ssim3d_per_sample(x, x)) EXPECT_NEAR(v, 1.0, 1e-12);
  // Smaller than the window along every axis, and a one-voxel-thick slab.
  const auto tiny = random_volume({5, 6, 3}, 5);
  EXPECT_NEAR(ssim3d(tiny, tiny), 1.0, 1e-12);
  const auto slab = random_volume({1, 1, 12, 12, 1}, 6);
  EXPECT_NEAR(ssim3d(slab, slab), 1.0, 1e-12);
}

TEST(Ssim, WindowShrinksToTheLargestOddSizeThatFits) {
  const SsimOptions o;
  EXPECT_EQ(ssim_window({64, 64, 64}, o), (std::array<std::int64_t, 3>{11, 11, 11}));
  EXPECT_EQ(ssim_window({5, 6, 64}, o), (std::array<std::int64_t, 3>{5, 5, 11}));
  EXPECT_EQ(ssim_window({1, 2, 11}, o), (std::array<std::int64_t, 3>{1, 1, 11}));
}

// Constants C1 = (k1 L)^2, C2 = (k2 L)^2 with L = 1.
constexpr double c1 = 0.01 * 0.01, c2 = 0.03 * 0.03;

TEST(Ssim, ConstantVolumesFollowTheLuminanceTerm) {
  // y = a + c everywhere: sigma_x = sigma_y = sigma_xy = 0, so the contrast-structure
  // term is C2 / C2 = 1 and SSIM = (2 a (a + c) + C1) / (a^2 + (a + c)^2 + C1).
  for (auto size : {std::vector<std::int64_t>{16, 16, 16}, std::vector<std::int64_t>{4, 4, 4}}) {
    const double a = 0.2, c = 0.1;
    const auto x = at::full(size, a, at::kDouble);
    const double expected = (2 * a * (a + c) + c1) / (a * a + (a + c) * (a + c) + c1);
    EXPECT_NEAR(ssim3d(x, x + c), expected, 1e-12);
  }
}

// Gaussian-weighted local mean of x at the valid window starting at (i, j, k),
// by plain loops (MONAI's 1D Gaussian: exp(-d^2 / (2 sigma^2)), normalised).
std::vector<double> gaussian(int size, double sigma) {
  std::vector<double> g(size);
  double sum = 0;
  for (int t = 0; t < size; ++t) {
    const double d = t - (size - 1) / 2.0;
    sum += g[t] = std::exp(-d * d / (2 * sigma * sigma));
  }
  for (auto& v : g) v /= sum;
  return g;
}

TEST(Ssim, OffsetOfARandomVolumeFollowsTheLuminanceTermPerWindow) {
  // y = x + c: the local variances and covariance of x and y are equal, so the
  // contrast-structure term is 1 and each window scores
  // (2 mu (mu + c) + C1) / (mu^2 + (mu + c)^2 + C1) with mu its local mean.
  const int n = 13, k = 11, valid = n - k + 1;
  const double c = 0.15;
  const auto x = random_volume({n, n, n}, 7);
  const auto acc = x.accessor<double, 3>();
  const auto g = gaussian(k, 1.5);
  double sum = 0;
  for (int i = 0; i < valid; ++i)
    for (int j = 0; j < valid; ++j)
      for (int l = 0; l < valid; ++l) {
        double mu = 0;
        for (int a = 0; a < k; ++a)
          for (int b = 0; b < k; ++b)
            for (int e = 0; e < k; ++e) mu += g[a] * g[b] * g[e] * acc[i + a][j + b][l + e];
        sum += (2 * mu * (mu + c) + c1) / (mu * mu + (mu + c) * (mu + c) + c1);
      }
  const double expected = sum / (valid * valid * valid);
  EXPECT_NEAR(ssim3d(x, x + c), expected, 1e-10);
  EXPECT_LT(expected, 1.0);
}

TEST(Ssim, NegatedVolumeScoresBelowZero) {
  // A +-a checkerboard has (almost exactly) zero local mean: luminance ~ 1, and
  // sigma_xy = -sigma_x = -a^2, so SSIM(x, -x) ~ (C2 - 2 a^2) / (C2 + 2 a^2).
  const double a = 0.5;
  auto idx = at::arange(16, at::kDouble);
  auto parity = idx.view({16, 1, 1}) + idx.view({1, 16, 1}) + idx.view({1, 1, 16});
  const auto x = a * (1.0 - 2.0 * at::remainder(parity, 2.0));
  const double s = ssim3d(x, -x);
  EXPECT_LT(s, 0.0);
  EXPECT_NEAR(s, (c2 - 2 * a * a) / (c2 + 2 * a * a), 1e-6);
}

TEST(Ssim, BatchMeanAndChannelsAndDtype) {
  const auto x = random_volume({2, 2, 12, 12, 12}, 9);
  const auto y = x + 0.05 * random_volume({2, 2, 12, 12, 12}, 10);
  const auto per = ssim3d_per_sample(x, y);
  ASSERT_EQ(per.size(), 2u);
  EXPECT_NEAR(ssim3d(x, y), (per[0] + per[1]) / 2, 1e-12);
  // Each sample is the mean of its channels scored alone.
  const double ch0 = ssim3d(x[0][0], y[0][0]), ch1 = ssim3d(x[0][1], y[0][1]);
  EXPECT_NEAR(per[0], (ch0 + ch1) / 2, 1e-12);
  EXPECT_NEAR(ssim3d(x.to(at::kFloat), y.to(at::kFloat)), ssim3d(x, y), 1e-5);
  EXPECT_LT(per[0], 1.0);
  EXPECT_GT(per[0], 0.5);
}

TEST(Ssim, RejectsBadInputsAndOptions) {
  EXPECT_THROW(ssim3d(at::zeros({4, 4, 4}), at::zeros({4, 4, 5})), UsageError);
  EXPECT_THROW(ssim3d(at::zeros({4, 4}), at::zeros({4, 4})), UsageError);
  SsimOptions o;
  o.kernel_size = 10;
  try {
    ssim3d(at::zeros({4, 4, 4}), at::zeros({4, 4, 4}), o);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel_size"), std::string::npos);
  }
}

// Bands that partition the reference's range: their fractions add up to 1 and
// their fraction-weighted SSIM is the volume's SSIM.
TEST(SsimByBand, PartitionRecomposesTheVolumesSsim) {
  const auto y = random_volume({1, 1, 20, 20, 20}, 7);
  const auto x = (y + 0.05 * random_volume({1, 1, 20, 20, 20}, 8)).clamp(0.0, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  const auto bands = ssim3d_by_band(x, y, {{"low", -inf, 0.45}, {"high", 0.45, inf}});
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_NEAR(bands[0].fraction + bands[1].fraction, 1.0, 1e-12);
  EXPECT_NEAR(bands[0].fraction * bands[0].ssim + bands[1].fraction * bands[1].ssim, ssim3d(x, y), 1e-9);
}

// The quick start's finding in miniature: the same +0.012 bias (24 HU in
// MAISI's window) costs SSIM's luminance factor far more over air (0) than
// over soft tissue (0.5), and the band reports the bias.
TEST(SsimByBand, ABiasOverAirCostsLuminanceThatTissueDoesNotPay) {
  auto y = at::zeros({1, 1, 24, 24, 24}, at::kDouble);
  y.narrow(4, 12, 12).fill_(0.5);  // half air, half tissue
  const auto x = y + 0.012;
  const auto bands = ssim3d_by_band(x, y, {{"air", -1.0, 0.02}, {"tissue", 0.02, 2.0}});
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_GT(bands[0].fraction, 0.1);
  EXPECT_GT(bands[1].fraction, 0.1);
  EXPECT_LT(bands[0].luminance, 0.6);    // (C1) / (0.012^2 + C1) = 0.41 in the middle of the air
  // 0.5 vs 0.512: ~0.999 inside; windows that straddle the edge see a lower
  // local mean and pay a little more, so the band's mean is ~0.99.
  EXPECT_GT(bands[1].luminance, 0.98);
  EXPECT_NEAR(bands[0].mean_offset, 0.012, 1e-9);
  EXPECT_NEAR(bands[1].mean_offset, 0.012, 1e-9);
  // An empty band is NaN, not 0; a band with lo >= hi is refused.
  const auto empty = ssim3d_by_band(x, y, {{"above", 5.0, 6.0}});
  EXPECT_EQ(empty[0].fraction, 0.0);
  EXPECT_TRUE(std::isnan(empty[0].ssim));
  EXPECT_THROW(ssim3d_by_band(x, y, {{"bad", 1.0, 1.0}}), UsageError);
}

}  // namespace
}  // namespace medsynth
