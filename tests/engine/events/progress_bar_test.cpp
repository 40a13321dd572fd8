// The progress bar: silent when not on a TTY, draws step/percent/epoch/loss/
// rate/elapsed/ETA when forced, rate-limits redraws, estimates the ETA from a
// moving average of step times (with an injected clock, so no sleeps).
#include "events/progress_bar.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "core/error.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using namespace std::chrono_literals;

// A file standing in for stderr, plus a manual clock.
class ProgressBarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fd_ = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override { ::close(fd_); }

  ProgressBarOptions options(bool force) {
    return {.fd = fd_, .force = force, .width = 120, .min_redraw_s = 0.1, .eta_smoothing = 0.5,
            .clock = [this] { return now_; }};
  }
  std::string output() const { return test::read_bytes(out_); }
  static long count(const std::string& s, char c) { return std::count(s.begin(), s.end(), c); }

  test::TempDir dir_{"progress"};
  std::filesystem::path out_ = dir_ / "stderr.txt";
  int fd_ = -1;
  std::chrono::steady_clock::time_point now_{};
};

TEST_F(ProgressBarTest, SilentWhenNotATerminal) {
  {
    ProgressBar bar(options(false));
    EXPECT_FALSE(bar.active());
    for (int s = 1; s <= 5; ++s) {
      now_ += 1s;
      bar.update({.step = s, .total_steps = 5, .loss = 0.5});
    }
    bar.finish();
  }
  EXPECT_EQ(output(), "");
}

TEST_F(ProgressBarTest, ForcedBarShowsTheState) {
  ProgressBar bar(options(true));
  EXPECT_TRUE(bar.active());
  now_ += 1s;
  bar.update({.step = 250, .total_steps = 1000, .epoch = 3, .epochs = 50, .loss = 0.0123, .samples_per_s = 4.0});
  const std::string out = output();
  EXPECT_EQ(out.front(), '\r');
  for (const char* part : {"step 250/1000", "25%", "epoch 3/50", "loss 0.0123", "4.0 samples/s", "00:01<--:--"})
    EXPECT_NE(out.find(part), std::string::npos) << part << " missing in " << out;
  EXPECT_EQ(count(out, '\n'), 0);
}

TEST_F(ProgressBarTest, EtaFollowsMovingAverageOfStepTime) {
  ProgressBar bar(options(true));
  bar.update({.step = 0, .total_steps = 100});
  EXPECT_FALSE(bar.seconds_per_step());  // one point: no rate yet
  now_ += 2s;
  bar.update({.step = 1, .total_steps = 100});
  ASSERT_TRUE(bar.seconds_per_step());
  EXPECT_DOUBLE_EQ(*bar.seconds_per_step(), 2.0);
  now_ += 4s;  // two steps in 4 s: 2 s/step again
  bar.update({.step = 3, .total_steps = 100});
  EXPECT_DOUBLE_EQ(*bar.seconds_per_step(), 2.0);
  now_ += 6s;  // 6 s/step, smoothing 0.5: (6 + 2) / 2
  bar.update({.step = 4, .total_steps = 100});
  EXPECT_DOUBLE_EQ(*bar.seconds_per_step(), 4.0);
  // 96 steps left x 4 s = 384 s = 06:24; elapsed = 12 s.
  EXPECT_NE(bar.render().find("00:12<06:24"), std::string::npos) << bar.render();
  // Issue 53 item 6: the rate is shown from the same average.
  EXPECT_NE(bar.render().find(" 4 s/step "), std::string::npos) << bar.render();
  now_ += 1s;  // 1 s/step: (1 + 4) / 2 = 2.5 s/step
  bar.update({.step = 5, .total_steps = 100});
  EXPECT_NE(bar.render().find(" 2.5 s/step "), std::string::npos) << bar.render();
  for (int step = 6; step <= 12; ++step) {
    now_ += 100ms;  // fast steps: the average drops below a second
    bar.update({.step = step, .total_steps = 100});
  }
  EXPECT_NE(bar.render().find(" steps/s "), std::string::npos) << bar.render();
}

TEST_F(ProgressBarTest, RedrawsAtMostTenTimesPerSecondButAlwaysAtTheEnd) {
  ProgressBar bar(options(true));
  for (int s = 1; s <= 50; ++s) {
    now_ += 10ms;  // 50 steps in 0.5 s
    bar.update({.step = s, .total_steps = 50});
  }
  const std::string out = output();
  const long draws = count(out, '\r');
  EXPECT_GE(draws, 2);
  EXPECT_LE(draws, 7);  // first draw + one per 0.1 s + the final step
  EXPECT_NE(out.rfind("step 50/50 100%"), std::string::npos);
}

TEST_F(ProgressBarTest, FinishEndsTheLine) {
  ProgressBar bar(options(true));
  bar.update({.step = 3, .total_steps = 10});
  bar.finish();
  bar.finish();  // error paths may call it again
  const std::string out = output();
  EXPECT_EQ(out.back(), '\n');
  EXPECT_EQ(count(out, '\n'), 1);
}

TEST_F(ProgressBarTest, PrintAboveClearsAndRedrawsTheBar) {
  ProgressBar bar(options(true));
  bar.update({.step = 3, .total_steps = 10});
  const auto before = output().size();
  bar.print_above("hello");
  const std::string added = output().substr(before);
  EXPECT_EQ(added.rfind("\r\x1b[Khello\n", 0), 0u) << added;
  EXPECT_NE(added.find("step 3/10", 6), std::string::npos);  // the bar comes back below the text
}

TEST_F(ProgressBarTest, PrintAboveWithoutTerminalWritesJustTheText) {
  ProgressBar bar(options(false));
  bar.update({.step = 3, .total_steps = 10});
  bar.print_above("line\n");
  EXPECT_EQ(output(), "line\n");
}

TEST_F(ProgressBarTest, NarrowTerminalDropsTheBarAndFitsTheWidth) {
  auto opts = options(true);
  opts.width = 30;
  ProgressBar bar(opts);
  bar.update({.step = 3, .total_steps = 10, .epoch = 1, .epochs = 2, .loss = 1.5, .samples_per_s = 2.0});
  EXPECT_LE(bar.render().size(), 29u);
  EXPECT_EQ(bar.render().find('['), std::string::npos);
}

TEST(ProgressBar, RejectsBadOptions) {
  EXPECT_THROW(ProgressBar({.width = -1}), UsageError);
  EXPECT_THROW(ProgressBar({.eta_smoothing = 0.0}), UsageError);
}

}  // namespace
}  // namespace medsynth
