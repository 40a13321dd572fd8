// The 8-phase form of a 3^3 convolution of a nearest x2 upsampling
// (models/nearest_upsample_conv.hpp) against the direct computation:
// the output and the gradients of input, weight and bias, in float64 (where
// only the order of the sums differs), float32, channels-last and bf16
// autocast; and the blocks that use it, with the phase path on and off.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "models/autoencoder_blocks.hpp"
#include "models/nearest_upsample_conv.hpp"
#include "train/autocast_scope.hpp"

using namespace medsynth;

namespace {

struct Grads {
  at::Tensor out, dx, dw, db;
};

// Output and gradients of one computation under a fixed upstream gradient.
template <typename F>
Grads run(F f, const at::Tensor& x0, const at::Tensor& w0, const at::Tensor& b0, const at::Tensor& upstream) {
  auto x = x0.detach().clone().requires_grad_(true);
  auto w = w0.detach().clone().requires_grad_(true);
  auto b = b0.detach().clone().requires_grad_(true);
  auto out = f(x.contiguous(x0.suggest_memory_format()), w, b);
  (out.to(upstream.scalar_type()) * upstream).sum().backward();
  return {out.detach(), x.grad(), w.grad(), b.grad()};
}

double max_relative(const at::Tensor& a, const at::Tensor& b) {
  const auto fa = a.to(at::kDouble), fb = b.to(at::kDouble);
  return ((fa - fb).abs().max() / fb.abs().max().clamp_min(1e-30)).item<double>();
}

void expect_same(const Grads& phases, const Grads& direct, double tolerance) {
  EXPECT_EQ(phases.out.sizes(), direct.out.sizes());
  EXPECT_LE(max_relative(phases.out, direct.out), tolerance) << "output";
  EXPECT_LE(max_relative(phases.dx, direct.dx), tolerance) << "input gradient";
  EXPECT_LE(max_relative(phases.dw, direct.dw), tolerance) << "weight gradient";
  EXPECT_LE(max_relative(phases.db, direct.db), tolerance) << "bias gradient";
}

Grads both(bool phases, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b, const at::Tensor& up) {
  return phases ? run(conv3x3_of_nearest_x2, x, w, b, up) : run(conv3x3_of_nearest_x2_direct, x, w, b, up);
}

}  // namespace

TEST(NearestUpsampleConv, EqualsTheDirectComputationInFloat64) {
  at::manual_seed(3);
  const auto opts = at::TensorOptions().dtype(at::kDouble);
  // Unequal sides and odd sizes, so that a mixed-up axis or border shows.
  const auto x = at::randn({2, 3, 5, 4, 6}, opts);
  const auto w = at::randn({4, 3, 3, 3, 3}, opts);
  const auto b = at::randn({4}, opts);
  const auto up = at::randn({2, 4, 10, 8, 12}, opts);
  expect_same(both(true, x, w, b, up), both(false, x, w, b, up), 1e-12);
  // A kernel with one tap is the upsampled input shifted: the phases must
  // place every tap (here the corner one) where the direct form does.
  auto corner = at::zeros_like(w);
  corner.index_put_({0, 0, 0, 2, 1}, 1.0);
  const auto shifted = conv3x3_of_nearest_x2(x, corner, at::zeros_like(b));
  EXPECT_LE(max_relative(shifted, conv3x3_of_nearest_x2_direct(x, corner, at::zeros_like(b))), 1e-15);
}

TEST(NearestUpsampleConv, EqualsTheDirectComputationInFloat32AndChannelsLast) {
  at::manual_seed(4);
  const auto x = at::randn({1, 8, 8, 8, 8});
  const auto w = at::randn({16, 8, 3, 3, 3}) * 0.1;
  const auto b = at::randn({16});
  const auto up = at::randn({1, 16, 16, 16, 16});
  expect_same(both(true, x, w, b, up), both(false, x, w, b, up), 1e-5);
  const auto cl = x.contiguous(at::MemoryFormat::ChannelsLast3d);
  const auto phases = both(true, cl, w, b, up);
  expect_same(phases, both(false, cl, w, b, up), 1e-5);
  EXPECT_TRUE(phases.out.is_contiguous(at::MemoryFormat::ChannelsLast3d)) << "the layout of the input is kept";
}

// Under bf16 autocast both round the convolution's inputs to bf16 (the
// phases their summed taps): they agree to bf16's precision.
TEST(NearestUpsampleConv, AgreesUnderBf16Autocast) {
  if (!autocast_pays_off(c10::kCPU)) GTEST_SKIP() << "this CPU has no native bf16; the engine trains it in fp32";
  at::manual_seed(5);
  const auto x = at::randn({1, 16, 8, 8, 8});
  const auto w = at::randn({16, 16, 3, 3, 3}) * 0.1;
  const auto b = at::randn({16});
  const auto up = at::randn({1, 16, 16, 16, 16});
  Grads phases, direct;
  {
    AutocastScope autocast(true, c10::kCPU);
    phases = both(true, x, w, b, up);
    direct = both(false, x, w, b, up);
  }
  EXPECT_EQ(phases.out.scalar_type(), at::kBFloat16);
  expect_same(phases, direct, 3e-2);
}

TEST(NearestUpsampleConv, TheBlocksTakeItOnlyWhereItApplies) {
  const auto w = at::randn({4, 4, 3, 3, 3});
  EXPECT_TRUE(nearest_upsample_conv_applies(at::randn({1, 4, 4, 4, 4}), w));
  EXPECT_FALSE(nearest_upsample_conv_applies(at::randn({1, 4, 4, 3, 4}), w)) << "a 3-voxel axis";
  EXPECT_FALSE(nearest_upsample_conv_applies(at::randn({1, 4, 8, 8, 8}), at::randn({4, 4, 1, 1, 1}))) << "not 3^3";
  set_nearest_upsample_conv_enabled(false);
  EXPECT_FALSE(nearest_upsample_conv_applies(at::randn({1, 4, 4, 4, 4}), w));
  set_nearest_upsample_conv_enabled(true);

  // MONAI's AutoencoderKL upsampling block, with the phase path on and off.
  at::manual_seed(6);
  AutoencoderUpsample block(8, /*use_convtranspose=*/false);
  const auto x = at::randn({1, 8, 6, 6, 6});
  at::NoGradGuard no_grad;
  const auto on = block->forward(x);
  set_nearest_upsample_conv_enabled(false);
  const auto off = block->forward(x);
  set_nearest_upsample_conv_enabled(true);
  EXPECT_EQ(on.sizes(), (std::vector<int64_t>{1, 8, 12, 12, 12}));
  EXPECT_LE(max_relative(on, off), 1e-5);
}
