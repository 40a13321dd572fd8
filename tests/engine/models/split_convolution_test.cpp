// The split convolution (models/split_convolution.hpp) must equal the
// unsplit convolution for every size, stride, axis and split count, including
// the sizes that do not divide and that MONAI's fixed-overlap split gets wrong.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <tuple>

#include "models/split_convolution.hpp"

namespace medsynth {
namespace {

void expect_split_equals_whole(SplitConvolutionOptions o, const at::Tensor& x) {
  at::manual_seed(7);
  SplitConvolution whole(o);
  for (int splits : {2, 3, 4, 5}) {
    for (int axis : {0, 1, 2}) {
      o.num_splits = splits;
      o.dim_split = axis;
      SplitConvolution split(o);
      {
        at::NoGradGuard no_grad;
        split->conv->weight().copy_(whole->conv->weight());
        split->conv->bias().copy_(whole->conv->bias());
      }
      const auto expected = whole->forward(x);
      const auto got = split->forward(x);
      ASSERT_EQ(got.sizes(), expected.sizes()) << splits << " pieces along " << axis;
      EXPECT_TRUE(at::allclose(got, expected, 1e-5, 1e-6))
          << splits << " pieces along " << axis << ": max difference " << (got - expected).abs().max().item<double>();
    }
  }
}

TEST(SplitConvolution, AStrideOneConvolutionInPiecesEqualsTheWhole) {
  expect_split_equals_whole({3, 4, 3, 1, 1}, at::randn({2, 3, 13, 10, 11}));
}

TEST(SplitConvolution, APointwiseConvolutionInPiecesEqualsTheWhole) {
  expect_split_equals_whole({3, 5, 1, 1, 0}, at::randn({1, 3, 9, 12, 7}));
}

TEST(SplitConvolution, AStridedUnpaddedConvolutionInPiecesEqualsTheWhole) {
  expect_split_equals_whole({2, 2, 3, 2, 0}, at::randn({1, 2, 17, 15, 12}));
}

TEST(SplitConvolution, ATransposedConvolutionInPiecesEqualsTheWhole) {
  SplitConvolutionOptions o{3, 2, 3, 2, 1, /*transposed=*/true};
  expect_split_equals_whole(o, at::randn({1, 3, 9, 8, 11}));
}

TEST(SplitConvolution, NamesFollowMaisi) {
  SplitConvolution c(SplitConvolutionOptions{1, 2, 3, 1, 1});
  const auto names = c->named_parameters().keys();
  EXPECT_EQ(names, (std::vector<std::string>{"conv.conv.weight", "conv.conv.bias"}));
}

TEST(SplitConvolution, GradientsFlowThroughThePieces) {
  SplitConvolutionOptions o{2, 2, 3, 1, 1, false, 3, 1};
  SplitConvolution split(o);
  const auto x = at::randn({1, 2, 6, 9, 5}).requires_grad_(true);
  split->forward(x).sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_GT(split->conv->weight().grad().abs().sum().item<double>(), 0.0);
}

}  // namespace
}  // namespace medsynth
