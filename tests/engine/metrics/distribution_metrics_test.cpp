// FID, MMD and MS-SSIM against MONAI 1.6.1's FIDMetric, MMDMetric and
// MultiScaleSSIMMetric: data/make_monai_metric_reference.py builds the same
// inputs from the same formulas as pattern_volume/feature_set below and
// stores MONAI's results; we must agree within 1e-4 relative.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "metrics/distribution_metrics.hpp"
#include "metrics/image_metrics.hpp"
#include "state/tensor_file.hpp"

using namespace medsynth;

namespace {

const TensorFile& fixture() {
  static const TensorFile f = read_tensor_file(std::string(MEDSYNTH_METRICS_TEST_DATA) + "/monai_metrics.safetensors");
  return f;
}

double reference(const std::string& name, std::int64_t index = 0) { return fixture().tensors.at(name)[index].item<double>(); }

// As pattern_volume() in the generator: [batch, 1, size^3] float32 in [0, 1].
at::Tensor pattern_volume(std::int64_t batch, std::int64_t size, double phase) {
  const auto r = at::arange(size, at::kDouble);
  const auto grids = at::meshgrid({r, r, r}, "ij");
  const auto &i = grids[0], &j = grids[1], &k = grids[2];
  std::vector<at::Tensor> volumes;
  for (std::int64_t b = 0; b < batch; ++b) {
    const double p = phase + 0.7 * static_cast<double>(b);
    auto v = 0.5 + 0.25 * at::sin(0.21 * i + p) * at::cos(0.17 * j - 0.5 * p) + 0.15 * at::sin(0.11 * k + 0.3 * i + p);
    v = v + 0.08 * at::sin(12.9898 * i + 78.233 * j + 37.719 * k + 3.0 * p);
    volumes.push_back(v.clamp(0.0, 1.0).unsqueeze(0));
  }
  return at::stack(volumes).to(at::kFloat);
}

void expect_relative(double ours, double monai, const std::string& what) {
  EXPECT_LE(std::abs(ours - monai), 1e-4 * std::max(1e-12, std::abs(monai))) << what << ": ours " << ours << ", MONAI " << monai;
}

}  // namespace

TEST(DistributionMetrics, FidMatchesMonaiOnTheSameFeatures) {
  const double ours = frechet_distance(fixture().tensors.at("fid.a"), fixture().tensors.at("fid.b"));
  expect_relative(ours, reference("fid.value"), "FID");
  EXPECT_NEAR(frechet_distance(fixture().tensors.at("fid.a"), fixture().tensors.at("fid.a")), 0.0, 1e-9) << "a set against itself";
}

TEST(DistributionMetrics, MmdMatchesMonaiOnTheSameVolumes) {
  const double ours = linear_mmd(pattern_volume(4, 12, 0.0), pattern_volume(4, 12, 0.4));
  expect_relative(ours, reference("mmd.value"), "MMD");
}

TEST(DistributionMetrics, MsSsimMatchesMonaiWithThreeAndFiveScales) {
  MsSsimOptions three;
  three.ssim.kernel_size = 7;
  three.ssim.sigma = 1.5;
  three.weights = {0.2, 0.3, 0.5};
  const auto per_sample = ms_ssim3d_per_sample(pattern_volume(2, 48, 0.0), pattern_volume(2, 48, 0.25), three);
  ASSERT_EQ(per_sample.size(), 2u);
  for (std::int64_t i = 0; i < 2; ++i) expect_relative(per_sample[static_cast<std::size_t>(i)], reference("ms_ssim.k7_w3", i), "MS-SSIM 3 scales");

  MsSsimOptions five;  // MONAI's default weights
  five.ssim.kernel_size = 5;
  five.ssim.sigma = 1.0;
  expect_relative(ms_ssim3d_per_sample(pattern_volume(1, 80, 0.0), pattern_volume(1, 80, 0.5), five).at(0),
                  reference("ms_ssim.k5_default_weights"), "MS-SSIM 5 scales");
}

TEST(DistributionMetrics, TooSmallOrMismatchedInputsAreUsageErrorsSayingWhy) {
  MsSsimOptions defaults;  // kernel 11, 5 scales: 176 voxels per axis
  try {
    ms_ssim3d_per_sample(pattern_volume(1, 64, 0.0), pattern_volume(1, 64, 0.1), defaults);
    FAIL() << "a 64^3 volume is too small for 5 scales of an 11-voxel window";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("longer than 160 voxels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(frechet_distance(at::ones({1, 4}), at::ones({5, 4})), UsageError);
  EXPECT_THROW(frechet_distance(at::ones({3, 4}), at::ones({5, 3})), UsageError);
  EXPECT_THROW(linear_mmd(pattern_volume(2, 8, 0.0), pattern_volume(2, 12, 0.0)), UsageError);
}
