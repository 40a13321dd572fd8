// AutocastScope: bf16 autocast on CPU only where it pays off, forced either way
// by MEDSYNTH_CPU_BF16, and the previous autocast state restored on exit.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include <cstdlib>

#include "train/autocast_scope.hpp"

using namespace medsynth;

namespace {
at::ScalarType conv_dtype_under_amp() {
  const at::Tensor x = at::randn({1, 2, 6, 6, 6});
  const at::Tensor w = at::randn({3, 2, 3, 3, 3});
  AutocastScope scope(true, c10::DeviceType::CPU);
  return at::conv3d(x, w).scalar_type();
}

struct ForcedCpuBf16 {
  explicit ForcedCpuBf16(const char* value) { ::setenv("MEDSYNTH_CPU_BF16", value, 1); }
  ~ForcedCpuBf16() { ::unsetenv("MEDSYNTH_CPU_BF16"); }
};
}  // namespace

TEST(Autocast, ForcedOnRunsConvolutionsInBf16AndRestoresTheStateAfterwards) {
  ForcedCpuBf16 forced("1");
  EXPECT_TRUE(autocast_pays_off(c10::DeviceType::CPU));
  EXPECT_EQ(conv_dtype_under_amp(), at::kBFloat16);
  EXPECT_FALSE(at::autocast::is_autocast_enabled(c10::DeviceType::CPU));
  EXPECT_EQ(at::conv3d(at::randn({1, 2, 4, 4, 4}), at::randn({1, 2, 3, 3, 3})).scalar_type(), at::kFloat);
}

TEST(Autocast, ForcedOffKeepsFp32) {
  ForcedCpuBf16 forced("0");
  EXPECT_FALSE(autocast_pays_off(c10::DeviceType::CPU));
  EXPECT_EQ(conv_dtype_under_amp(), at::kFloat);
}

TEST(Autocast, AmpAsRunFollowsTheCpuDecision) {
  ::unsetenv("MEDSYNTH_CPU_BF16");
  EXPECT_EQ(conv_dtype_under_amp(), autocast_pays_off(c10::DeviceType::CPU) ? at::kBFloat16 : at::kFloat);
  EXPECT_TRUE(autocast_pays_off(c10::DeviceType::CUDA));  // fp16 autocast is always worth it on a GPU
  AutocastScope off(false, c10::DeviceType::CPU);
  EXPECT_FALSE(at::autocast::is_autocast_enabled(c10::DeviceType::CPU));
}
