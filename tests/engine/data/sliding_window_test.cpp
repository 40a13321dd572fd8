// Sliding-window inference: window placement and exact reassembly.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "data/sliding_window_inference.hpp"

using namespace medsynth;

TEST(SlidingWindow, StartsCoverTheAxisWithTheLastWindowFlush) {
  EXPECT_EQ(window_starts(64, 32, 0.25), (std::vector<std::int64_t>{0, 24, 32}));
  EXPECT_EQ(window_starts(64, 32, 0.0), (std::vector<std::int64_t>{0, 32}));
  EXPECT_EQ(window_starts(32, 32, 0.5), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(window_starts(20, 32, 0.5), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(window_starts(100, 32, 0.5), (std::vector<std::int64_t>{0, 16, 32, 48, 64, 68}));
}

TEST(SlidingWindow, IdentityPredictorReassemblesTheVolumeExactly) {
  at::manual_seed(3);
  at::Tensor x = at::rand({1, 1, 40, 28, 52});  // one axis shorter than the window
  int calls = 0;
  SlidingWindowOptions o;
  o.roi = {32, 32, 32};
  o.overlap = 0.25;
  o.batch_size = 1;
  at::Tensor y = sliding_window_inference(x, o, [&](const at::Tensor& w) {
    ++calls;
    EXPECT_EQ(w.sizes(), (at::IntArrayRef{1, 1, 32, 32, 32}));
    return w;
  });
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_TRUE(at::allclose(y, x, 1e-5, 1e-6));
  EXPECT_EQ(calls, 2 * 1 * 2);  // starts z {0, 8}, y {0} (padded), x {0, 20}
  // Batching windows (sw_batch_size) changes the calls, not the result.
  o.batch_size = 3;
  calls = 0;
  at::Tensor batched = sliding_window_inference(x, o, [&](const at::Tensor& w) {
    ++calls;
    return w * 2;
  });
  EXPECT_EQ(calls, 2);  // 4 windows in batches of 3
  EXPECT_TRUE(at::allclose(batched, 2 * x, 1e-5, 1e-6));
}

TEST(SlidingWindow, BlendsOverlapsAndRejectsBadInput) {
  // A predictor that adds a per-window constant: overlapping voxels get a
  // weighted mean of the constants, never a value outside their range.
  at::Tensor x = at::zeros({1, 1, 48, 32, 32});
  int window = 0;
  SlidingWindowOptions one_by_one;
  one_by_one.batch_size = 1;
  at::Tensor y = sliding_window_inference(x, one_by_one, [&](const at::Tensor& w) { return w + static_cast<double>(window++); });
  EXPECT_EQ(window, 2);  // z starts {0, 16}
  EXPECT_GE(y.min().item<double>(), 0.0);
  EXPECT_LE(y.max().item<double>(), 1.0);
  EXPECT_GT(y[0][0][24][0][0].item<double>(), 0.05);  // the overlap mixes both windows
  EXPECT_LT(y[0][0][24][0][0].item<double>(), 0.95);
  EXPECT_NEAR(y[0][0][0][0][0].item<double>(), 0.0, 1e-2);   // only the first window
  EXPECT_NEAR(y[0][0][47][0][0].item<double>(), 1.0, 1e-2);  // only the last
  EXPECT_THROW(sliding_window_inference(at::zeros({2, 1, 8, 8, 8}), {}, [](const at::Tensor& w) { return w; }), UsageError);
}
