// models/conv3d_forward.hpp: under bf16 autocast on the CPU, LibTorch 2.15
// returned uninitialised weight gradients for a convolution whose kernel is
// larger than its input (these tests failed before conv3d_forward: gradients
// up to 1e37, different on every call). Each case compares the bf16 autocast
// gradient with the fp32 one (bf16 rounding: within 5 % of the largest) and
// asks two calls for the same bits. On a CPU whose bf16 path is right they
// pass either way.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include <functional>

#include "config/job_spec.hpp"
#include "models/conv3d_forward.hpp"
#include "models/convolution.hpp"
#include "models/patch_discriminator.hpp"

namespace medsynth {
namespace {

class Bf16Autocast {
 public:
  Bf16Autocast() {
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
    at::autocast::set_autocast_enabled(at::kCPU, true);
  }
  ~Bf16Autocast() {
    at::autocast::set_autocast_enabled(at::kCPU, false);
    at::autocast::clear_cache();
  }
};

// The gradient of mean(f(x)^2) with respect to `weight`, with or without autocast.
at::Tensor weight_gradient(torch::nn::Module& net, const at::Tensor& weight, const at::Tensor& x, bool bf16,
                           const std::function<at::Tensor(const at::Tensor&)>& f) {
  net.zero_grad();
  at::Tensor loss;
  {
    std::optional<Bf16Autocast> autocast;
    if (bf16) autocast.emplace();
    loss = f(x).to(at::kFloat).pow(2).mean();
  }
  loss.backward();
  return weight.grad().clone();
}

void expect_bf16_gradient_right(torch::nn::Module& net, const at::Tensor& weight, const at::Tensor& x,
                                const std::function<at::Tensor(const at::Tensor&)>& f) {
  const auto fp32 = weight_gradient(net, weight, x, false, f);
  const auto bf16 = weight_gradient(net, weight, x, true, f);
  const auto again = weight_gradient(net, weight, x, true, f);
  const double scale = fp32.abs().max().item<double>();
  ASSERT_GT(scale, 0.0);
  EXPECT_LT((bf16 - fp32).abs().max().item<double>(), 0.05 * scale)
      << "largest fp32 gradient " << scale << ", largest bf16 one " << bf16.abs().max().item<double>();
  EXPECT_TRUE(at::equal(bf16, again)) << "two bf16 calls gave different gradients";
}

TEST(Conv3dForward, AKernelLargerThanItsInputIsRightUnderBf16Autocast) {
  at::manual_seed(0);
  struct Case {
    int kernel, stride, padding, size;
  };
  // A 3^3 kernel on a 2^3 map (a UNet's deepest level), a 4^3 kernel on 3^3
  // (the PatchGAN's last layers on 32^3 patches), a strided 3^3 on 1^3.
  for (const Case c : {Case{3, 1, 1, 2}, Case{4, 1, 1, 3}, Case{3, 2, 1, 1}}) {
    SCOPED_TRACE("kernel " + std::to_string(c.kernel) + " stride " + std::to_string(c.stride) + " on " +
                 std::to_string(c.size) + "^3");
    Convolution conv(ConvolutionOptions{64, 8, c.kernel, c.stride, c.padding, true});
    const auto x = at::rand({2, 64, c.size, c.size, c.size});
    expect_bf16_gradient_right(*conv, conv->conv->weight, x, [&](const at::Tensor& in) { return conv->forward(in); });
  }
}

TEST(Conv3dForward, ThePatchDiscriminatorOnA32PatchIsRightUnderBf16Autocast) {
  at::manual_seed(0);
  PatchDiscriminator d(PatchDiscriminatorOptions{});
  const auto x = at::rand({2, 1, 32, 32, 32});
  expect_bf16_gradient_right(*d, d->final_conv->conv->weight, x, [&](const at::Tensor& in) { return d->forward(in); });
}

TEST(Conv3dForward, OnlyTheBuggyCaseLeavesBf16) {
  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(4, 4, 3).padding(1));
  Bf16Autocast autocast;
  EXPECT_TRUE(conv3d_needs_fp32(*conv, at::rand({1, 4, 2, 8, 8})));
  EXPECT_FALSE(conv3d_needs_fp32(*conv, at::rand({1, 4, 3, 3, 3})));
  EXPECT_EQ(conv3d_forward(*conv, at::rand({1, 4, 8, 8, 8})).scalar_type(), at::kBFloat16);
  EXPECT_EQ(conv3d_forward(*conv, at::rand({1, 4, 2, 8, 8})).scalar_type(), at::kFloat);
}

// Without a weight gradient to come (sampling, validation) the bug cannot
// bite: the forward stays in bf16, and it is right (issue 51).
TEST(Conv3dForward, WithoutAGradientTheForwardStaysInBf16AndIsRight) {
  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(16, 16, 3).padding(1));
  const auto x = at::randn({1, 16, 2, 2, 2});
  const auto fp32 = conv->forward(x).detach();
  Bf16Autocast autocast;
  {
    at::NoGradGuard no_grad;
    EXPECT_FALSE(conv3d_needs_fp32(*conv, x));
    const auto bf16 = conv3d_forward(*conv, x);
    EXPECT_EQ(bf16.scalar_type(), at::kBFloat16);
    const double scale = fp32.abs().max().item<double>();
    EXPECT_LT((bf16.to(at::kFloat) - fp32).abs().max().item<double>(), 0.05 * scale);
    EXPECT_TRUE(at::equal(bf16, conv3d_forward(*conv, x))) << "two bf16 forwards differ";
  }
  for (auto& p : conv->parameters()) p.set_requires_grad(false);
  EXPECT_FALSE(conv3d_needs_fp32(*conv, x)) << "frozen weights have no gradient either";
}

}  // namespace
}  // namespace medsynth
