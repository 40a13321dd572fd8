// The run logger: formatted lines in its rank's file (logs/rank{R}.log), a stderr level filter,
// warn/error forwarded as events, and lines printed above an attached bar.
#include "events/run_logger.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "events/event_writer.hpp"
#include "events/progress_bar.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::istringstream in(test::read_bytes(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class RunLoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stderr_fd_ = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(stderr_fd_, 0);
  }
  void TearDown() override { ::close(stderr_fd_); }

  test::TempDir dir_{"logger"};
  std::filesystem::path run_ = dir_ / "run";
  std::filesystem::path log_ = run_ / "logs" / "rank0.log";
  std::filesystem::path log3_ = run_ / "logs" / "rank3.log";
  std::filesystem::path stderr_path_ = dir_ / "stderr.txt";
  int stderr_fd_ = -1;
};

TEST_F(RunLoggerTest, WritesFormattedLinesToItsRankFile) {
  {
    RunLogger logger({.path = log3_, .rank = 3, .stderr_fd = stderr_fd_});
    EXPECT_EQ(logger.log_path(), log3_);
    logger.info("started");
    logger.debug("detail");
    logger.error("it broke");
  }
  const auto lines = lines_of(log3_);
  ASSERT_EQ(lines.size(), 3u);
  const std::regex format(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[rank 3\] (INFO|DEBUG|ERROR) .*)");
  for (const auto& line : lines) EXPECT_TRUE(std::regex_match(line, format)) << line;
  EXPECT_TRUE(lines[0].ends_with("] INFO started"));
  EXPECT_TRUE(lines[1].ends_with("] DEBUG detail"));
  EXPECT_TRUE(lines[2].ends_with("] ERROR it broke"));
}

TEST_F(RunLoggerTest, AppendsAcrossLoggers) {
  { RunLogger({.path = log_, .stderr_fd = stderr_fd_}).info("one"); }
  { RunLogger({.path = log_, .stderr_fd = stderr_fd_}).info("two"); }
  EXPECT_EQ(lines_of(log_).size(), 2u);
}

TEST_F(RunLoggerTest, StderrLevelFiltersOnlyTheTerminal) {
  RunLogger logger({.path = log_, .stderr_level = LogLevel::warn, .stderr_fd = stderr_fd_});
  logger.info("quiet info");
  logger.warn("loud warning");
  logger.set_stderr_level(LogLevel::debug);
  logger.debug("now visible");
  const std::string err = test::read_bytes(stderr_path_);
  EXPECT_EQ(err.find("quiet info"), std::string::npos);
  EXPECT_NE(err.find("WARN loud warning\n"), std::string::npos);
  EXPECT_NE(err.find("DEBUG now visible\n"), std::string::npos);
  EXPECT_EQ(lines_of(log_).size(), 3u);  // the file keeps everything
}

TEST_F(RunLoggerTest, FileLevelFiltersTheFile) {
  RunLogger logger({.path = log_, .file_level = LogLevel::info, .stderr_fd = stderr_fd_});
  logger.debug("dropped");
  logger.info("kept");
  const auto lines = lines_of(log_);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].ends_with("kept"));
}

TEST_F(RunLoggerTest, WarningsAndErrorsBecomeLogEvents) {
  EventWriter events({.path = run_ / "events.jsonl", .rank = 1});
  RunLogger logger({.path = log_, .rank = 1, .stderr_fd = stderr_fd_});
  logger.attach_events(&events);
  logger.info("routine");
  logger.warn("slow data loader");
  logger.error("NaN loss");
  const auto lines = lines_of(run_ / "events.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  const auto warn = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(warn.at("type"), "log");
  EXPECT_EQ(warn.at("level"), "warn");
  EXPECT_EQ(warn.at("message"), "slow data loader");
  EXPECT_EQ(warn.at("rank"), 1);
  EXPECT_EQ(nlohmann::json::parse(lines[1]).at("level"), "error");
}

TEST_F(RunLoggerTest, PrintsAboveAnAttachedBar) {
  ProgressBar bar({.fd = stderr_fd_, .force = true, .width = 100});
  RunLogger logger({.path = log_, .stderr_fd = stderr_fd_});
  logger.attach_progress_bar(&bar);
  bar.update({.step = 1, .total_steps = 4});
  logger.info("checkpoint saved");
  const std::string err = test::read_bytes(stderr_path_);
  const auto at = err.find("\r\x1b[K");  // the bar's line is cleared before the log line
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_NE(err.find("INFO checkpoint saved\n", at), std::string::npos);
  EXPECT_NE(err.find("step 1/4", err.find("checkpoint saved")), std::string::npos);  // bar redrawn below
}

TEST_F(RunLoggerTest, ConcurrentLinesStayWhole) {
  {
    RunLogger logger({.path = log_, .stderr_level = LogLevel::error, .stderr_fd = stderr_fd_});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&logger, t] {
        for (int i = 0; i < 200; ++i) logger.info("thread " + std::to_string(t) + " line " + std::to_string(i) + std::string(500, '.'));
      });
    for (auto& th : threads) th.join();
  }
  const auto lines = lines_of(log_);
  ASSERT_EQ(lines.size(), 800u);
  const std::regex whole(R"(.* \[rank 0\] INFO thread \d line \d+\.{500})");
  for (const auto& line : lines) ASSERT_TRUE(std::regex_match(line, whole)) << line;
}

TEST(RunLogger, WithoutFileOnlyStderr) {
  test::TempDir dir("logger");
  const auto err_path = dir / "stderr.txt";
  const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  {
    RunLogger logger({.stderr_fd = fd});
    EXPECT_TRUE(logger.log_path().empty());
    logger.warn("no run yet");
  }
  ::close(fd);
  EXPECT_NE(test::read_bytes(err_path).find("[rank 0] WARN no run yet\n"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "logs"));
}

}  // namespace
}  // namespace medsynth
