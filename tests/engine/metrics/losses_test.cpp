// Loss terms against values worked out by hand.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.hpp"
#include "metrics/losses.hpp"

namespace medsynth {
namespace {

at::Tensor t(std::vector<double> v, std::vector<std::int64_t> shape) {
  return at::tensor(v, at::kDouble).reshape(shape);
}

TEST(Losses, KlOfTwoElementsByHand) {
  // mu = (1, 0), logvar = (0, ln 2):
  // 0.5 * [(1 + 1 - 0 - 1) + (0 + 2 - ln 2 - 1)] = 1 - ln(2) / 2
  const double ln2 = std::log(2.0);
  const auto one_sample = kl_loss(t({1.0, 0.0}, {1, 2}), t({0.0, ln2}, {1, 2}));
  EXPECT_NEAR(one_sample.item<double>(), 1.0 - ln2 / 2.0, 1e-12);
  // The same two elements as two samples: summed per sample, averaged over the batch.
  const auto two_samples = kl_loss(t({1.0, 0.0}, {2, 1}), t({0.0, ln2}, {2, 1}));
  EXPECT_NEAR(two_samples.item<double>(), (1.0 - ln2 / 2.0) / 2.0, 1e-12);
  // The standard normal has zero divergence.
  EXPECT_EQ(kl_loss(at::zeros({3, 4, 2, 2, 2}), at::zeros({3, 4, 2, 2, 2})).item<double>(), 0.0);
}

TEST(Losses, KlStaysFiniteForExtremeLogVariance) {
  auto logvar = t({1000.0, -1000.0}, {1, 2}).to(at::kFloat).requires_grad_(true);
  const auto mu = at::zeros({1, 2});
  const auto kl = kl_loss(mu, logvar);
  ASSERT_TRUE(std::isfinite(kl.item<double>()));
  // Clamped to 20 and -30: 0.5 * [(e^20 - 20 - 1) + (e^-30 + 30 - 1)]
  const double expected = 0.5 * ((std::exp(20.0) - 21.0) + (std::exp(-30.0) + 29.0));
  EXPECT_NEAR(kl.item<double>(), expected, expected * 1e-6);
  kl.backward();
  EXPECT_TRUE(at::isfinite(logvar.grad()).all().item<bool>());
  // A custom clamp applies too.
  EXPECT_NEAR(kl_loss(at::zeros({1, 1}), at::full({1, 1}, 50.0), -1.0, 1.0).item<double>(),
              0.5 * (std::exp(1.0) - 2.0), 1e-6);
}

TEST(Losses, ReconstructionByHand) {
  const auto recon = t({0.0, 1.0, 2.0, 3.0}, {1, 1, 4});
  const auto target = t({1.0, 1.0, 1.0, 1.0}, {1, 1, 4});
  EXPECT_DOUBLE_EQ(reconstruction_loss(recon, target, "l1").item<double>(), 1.0);   // (1+0+1+2)/4
  EXPECT_DOUBLE_EQ(reconstruction_loss(recon, target, "l2").item<double>(), 1.5);   // (1+0+1+4)/4
  EXPECT_THROW(reconstruction_loss(recon, target, "l3"), UsageError);
  EXPECT_THROW(reconstruction_loss(recon, t({1.0}, {1, 1, 1}), "l1"), UsageError);  // no broadcasting
}

// Targets at the window's ends are bounds: at 0, a reconstruction <= 0 costs
// nothing and one above costs its excess; at 1 the mirror; inside, plain L1.
TEST(Losses, WindowL1TreatsTheWindowsEndsAsBounds) {
  const auto recon = t({-0.2, 0.1, 0.5, 1.3, 0.7, 0.3}, {1, 1, 6});
  const auto target = t({0.0, 0.0, 0.4, 1.0, 1.0, 0.5}, {1, 1, 6});
  // 0 + 0.1 + 0.1 + 0 + 0.3 + 0.2 over 6
  EXPECT_NEAR(reconstruction_loss(recon, target, "l1_window").item<double>(), 0.7 / 6.0, 1e-6);
  // A target inside the window keeps a gradient on both sides (unlike L1 of a clamped output).
  auto x = t({-0.3, 1.4}, {1, 1, 2}).set_requires_grad(true);
  reconstruction_loss(x, t({0.2, 0.6}, {1, 1, 2}), "l1_window").backward();
  EXPECT_LT(x.grad()[0][0][0].item<double>(), 0.0);
  EXPECT_GT(x.grad()[0][0][1].item<double>(), 0.0);
}

TEST(Losses, LeastSquaresAdversarialByHand) {
  // MONAI's least squares: LeakyReLU(0.05) first, so -1 becomes -0.05.
  const auto logits = t({2.0, -1.0}, {1, 1, 2});
  // Generator, target 1: ((2-1)^2 + (-0.05-1)^2) / 2 = (1 + 1.1025) / 2
  EXPECT_NEAR(generator_adversarial_loss(logits).item<double>(), 1.05125, 1e-12);
  // Discriminator: real vs 1 as above; fake vs 0: (4 + 0.0025) / 2; halved sum.
  EXPECT_NEAR(discriminator_loss(logits, logits).item<double>(), 0.5 * (1.05125 + 2.00125), 1e-12);
  // A perfect discriminator has zero loss; its fakes give the generator loss 1.
  const auto ones = at::ones({2, 1, 2, 2, 2}), zeros = at::zeros({2, 1, 2, 2, 2});
  EXPECT_EQ(discriminator_loss(ones, zeros).item<double>(), 0.0);
  EXPECT_EQ(generator_adversarial_loss(zeros).item<double>(), 1.0);
  EXPECT_THROW(generator_adversarial_loss(at::Tensor()), UsageError);
}

// NV-Generate's region-contrastive terms by hand on [1, 2, 2] tensors (one
// sample, two channels, two voxels): voxel 0 in the region, voxel 1 the background.
TEST(RegionContrastiveTerms, ByHandTheRegionIsBoundedByDeltaAndTheBackgroundIsAMeanL1) {
  const auto prediction = t({1, 2, 3, 4}, {1, 2, 2});
  const auto tumour_free = t({0.5, 2, 2, 6}, {1, 2, 2});
  const auto target = t({0, 0, 0, 1}, {1, 2, 2});
  const auto region = t({1, 0}, {1, 1, 2}), background = t({0, 1}, {1, 1, 2});
  // Region: -(|1 - 0.5| + |3 - 2|) / (2 + 1e-5) = -0.75; background: (|2 - 0| + |6 - 1|) / (2 + 1e-5).
  auto r = region_contrastive_terms(prediction, tumour_free, target, region, background, 2.0);
  EXPECT_NEAR(r.region.item<double>(), -1.5 / (2 + 1e-5), 1e-6);
  EXPECT_NEAR(r.background.item<double>(), 7.0 / (2 + 1e-5), 1e-6);
  r = region_contrastive_terms(prediction, tumour_free, target, region, background, 0.5);
  EXPECT_NEAR(r.region.item<double>(), -0.5, 1e-6) << "pushed apart no further than delta";
  r = region_contrastive_terms(prediction, tumour_free, target, t({0, 0}, {1, 1, 2}), background, 2.0);
  EXPECT_EQ(r.region.item<double>(), 0.0) << "an empty region counts nothing";
}

}  // namespace
}  // namespace medsynth
