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
            "evaluate: reading generated volumes 51/100 (4.59/s, elapsed 11 s, ETA 11 s)\n"
            "evaluate: reading generated volumes 100/100 (in 11 s, 9.08/s)\n"
            "evaluate: pairwise MS-SSIM 1/4\n");
}

// Issue 38: on a terminal the phase is a bar redrawn in place (at most ten
// times a second), ended by a newline; an unfinished phase's bar is left
// standing when the next begins.
TEST(ProgressLines, OnATerminalABarIsRedrawnInPlace) {
  std::ostringstream out;
  auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  ProgressLines bar({.prefix = "generate", .out = &out, .terminal = true, .clock = [&] { return t; }});
  bar.report("image seed 7: sampling", 1, 4);
  t += std::chrono::milliseconds(50);
  bar.report("image seed 7: sampling", 2, 4);  // within 0.1 s: not drawn
  t += std::chrono::milliseconds(100);
  bar.report("image seed 7: sampling", 3, 4);
  bar.report("image seed 7: sampling", 4, 4);  // the last: drawn, with its newline
  bar.report("image seed 7: decoding", 1, 2);
  bar.report("image seed 8: sampling", 1, 4);  // a new phase before decoding ended
  const std::string clear = "\r\033[K";
  EXPECT_EQ(out.str(),
            clear + "generate: image seed 7: sampling [#######.......................] 1/4 25%" + clear +
                "generate: image seed 7: sampling [######################........] 3/4 75% 13.3/s, "
                "elapsed 0.1 s, ETA 0.1 s" +
                clear + "generate: image seed 7: sampling [##############################] 4/4 100% in 0.1 s, 20/s\n" +
                clear + "generate: image seed 7: decoding [###############...............] 1/2 50%\n" + clear +
                "generate: image seed 8: sampling [#######.......................] 1/4 25%");
}

// Issue 53 item 6: a slow phase (MAISI's decoder, minutes a volume) gives
// its rate as time each, and long times in minutes and hours.
TEST(ProgressLines, ASlowPhaseSaysHowLongEachStepTakesAndWhenItEnds) {
  std::ostringstream out;
  auto t = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  ProgressLines lines({.prefix = "generate", .out = &out, .every_s = 10.0, .clock = [&] { return t; }});
  lines.report("decoding", 0, 40);
  t += std::chrono::seconds(150);
  lines.report("decoding", 1, 40);
  t += std::chrono::hours(2);
  lines.report("decoding", 40, 40);
  EXPECT_EQ(out.str(),
            "generate: decoding 0/40\n"
            "generate: decoding 1/40 (2 min 30 s each, elapsed 2 min 30 s, ETA 1 h 37 min)\n"
            "generate: decoding 40/40 (in 2 h 02 min, 3 min 03 s each)\n");
}

}  // namespace
}  // namespace medsynth
