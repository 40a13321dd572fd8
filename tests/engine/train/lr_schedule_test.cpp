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
