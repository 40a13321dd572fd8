// ProgressLines (events/progress_lines.hpp): the plain progress lines of the
// long commands that are not training. A phase's first and last step always
// print, the steps between at most once per every_s; on a fake clock.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "events/progress_lines.hpp"

namespace medsynth {
namespace {

TEST(ProgressLines, FirstAndLastOfEachPhaseAndOneLinePerIntervalBetween) {
  std::ostringstream out;
  auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  ProgressLines lines({.prefix = "evaluate", .out = &out, .every_s = 10.0, .clock = [&] { return t; }});
  lines.report("reading generated volumes", 1, 100);  // a new phase: printed
  for (int i = 2; i <= 50; ++i) {
    t += std::chrono::milliseconds(100);  // 4.9 s in all: nothing between
    lines.report("reading generated volumes", i, 100);
  }
  t += std::chrono::seconds(6);  // 10.9 s after the first line
  lines.report("reading generated volumes", 51, 100);
  lines.report("reading generated volumes", 52, 100);
  lines.report("reading generated volumes", 100, 100);  // the last step
  lines.report("pairwise MS-SSIM", 1, 4);               // the next phase at once
  EXPECT_EQ(out.str(),
            "evaluate: reading generated volumes 1/100\n"
            "evaluate: reading generated volumes 51/100\n"
            "evaluate: reading generated volumes 100/100\n"
            "evaluate: pairwise MS-SSIM 1/4\n");
}

}  // namespace
}  // namespace medsynth
