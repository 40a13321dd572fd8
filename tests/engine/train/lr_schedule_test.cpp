// The learning-rate schedule: linear warm-up, then cosine down to a floor.
#include <gtest/gtest.h>

#include "train/lr_schedule.hpp"

using namespace medsynth;

TEST(LrSchedule, WarmupThenCosineToTheFloor) {
  LrScheduleOptions o{1e-3, 10, 110, "cosine", 0.1};
  EXPECT_DOUBLE_EQ(learning_rate_at(o, 0), 1e-4);
  EXPECT_DOUBLE_EQ(learning_rate_at(o, 9), 1e-3);
  EXPECT_DOUBLE_EQ(learning_rate_at(o, 10), 1e-3);
  EXPECT_NEAR(learning_rate_at(o, 60), 1e-4 + 0.5 * 9e-4, 1e-15);  // half way: mean of peak and floor
  EXPECT_NEAR(learning_rate_at(o, 110), 1e-4, 1e-15);
  o.kind = "constant";
  EXPECT_DOUBLE_EQ(learning_rate_at(o, 100), 1e-3);
}

// torch.optim.lr_scheduler.PolynomialLR(total_iters=10, power=2), NV-Generate's
// diffusion schedule, stepped once per optimizer step: torch 2.15 prints
// 1e-3, 8.1e-4, ..., 2.5e-4 at step 5, 1e-5 at step 9, then 0.
TEST(LrSchedule, PolynomialDecaysToZeroAsTorchsPolynomialLr) {
  LrScheduleOptions o{1e-3, 0, 10, "polynomial", 0.0, 2.0};
  EXPECT_DOUBLE_EQ(learning_rate_at(o, 0), 1e-3);
  EXPECT_NEAR(learning_rate_at(o, 1), 8.1e-4, 1e-15);
  EXPECT_NEAR(learning_rate_at(o, 5), 2.5e-4, 1e-15);
  EXPECT_NEAR(learning_rate_at(o, 9), 1e-5, 1e-15);
  EXPECT_EQ(learning_rate_at(o, 10), 0.0);
  EXPECT_EQ(learning_rate_at(o, 12), 0.0) << "past the end it stays at 0, as PolynomialLR does";
  o.power = 1.0;
  EXPECT_NEAR(learning_rate_at(o, 5), 5e-4, 1e-15);
}
