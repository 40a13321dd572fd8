// The event stream: every type is one valid JSON line with v/type/time/rank
// and its own fields; lines stay whole under concurrency; non-finite numbers
// and broken UTF-8 still give valid JSON; metrics reach an attached TensorBoard.
#include "events/event_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "support/tensorboard_reader.hpp"
#include "events/tensorboard_writer.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

using nlohmann::json;

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::istringstream in(test::read_bytes(path));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Parses the single line of a file; fails the test on anything else.
json only_event(const std::filesystem::path& path) {
  const std::string bytes = test::read_bytes(path);
  EXPECT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.back(), '\n');
  EXPECT_EQ(std::count(bytes.begin(), bytes.end(), '\n'), 1) << bytes;
  return json::parse(bytes);  // throws (fails the test) on invalid JSON or UTF-8
}

void expect_envelope(const json& e, const std::string& type, int rank) {
  EXPECT_EQ(e.at("v"), 1);
  EXPECT_EQ(e.at("type"), type);
  EXPECT_EQ(e.at("rank"), rank);
  const std::string time = e.at("time");
  EXPECT_TRUE(std::regex_match(time, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"))) << time;
}

class EventWriterTest : public ::testing::Test {
 protected:
  test::TempDir dir_{"events"};
  std::filesystem::path path_ = dir_ / "run" / "events.jsonl";
  EventWriter writer_{{.path = path_, .rank = 2}};
};

TEST_F(EventWriterTest, RunStarted) {
  writer_.run_started({.run_dir = "runs/ae-20261122-053102",
                       .job_name = "ae",
                       .task = "autoencoder",
                       .config_hash = "9f2c",
                       .world_size = 4,
                       .effective_batch = 16,
                       .total_steps = 1000,
                       .device = "cpu",
                       .extra = {{"patch_size", std::vector<std::int64_t>{32, 32, 32}}, {"amp", false}}});
  const json e = only_event(path_);
  expect_envelope(e, "run_started", 2);
  EXPECT_EQ(e.at("run_dir"), "runs/ae-20261122-053102");
  EXPECT_EQ(e.at("job_name"), "ae");
  EXPECT_EQ(e.at("task"), "autoencoder");
  EXPECT_EQ(e.at("config_hash"), "9f2c");
  EXPECT_EQ(e.at("world_size"), 4);
  EXPECT_EQ(e.at("effective_batch"), 16);
  EXPECT_EQ(e.at("total_steps"), 1000);
  EXPECT_EQ(e.at("device"), "cpu");
  EXPECT_EQ(e.at("extra").at("patch_size"), json::array({32, 32, 32}));
  EXPECT_EQ(e.at("extra").at("amp"), false);
}

TEST_F(EventWriterTest, Progress) {
  writer_.progress(120, 1000, 3, 50, 4.5, 602.0);
  const json e = only_event(path_);
  expect_envelope(e, "progress", 2);
  EXPECT_EQ(e.at("step"), 120);
  EXPECT_EQ(e.at("total_steps"), 1000);
  EXPECT_EQ(e.at("epoch"), 3);
  EXPECT_EQ(e.at("epochs"), 50);
  EXPECT_DOUBLE_EQ(e.at("samples_per_s").get<double>(), 4.5);
  EXPECT_DOUBLE_EQ(e.at("eta_s").get<double>(), 602.0);
}

TEST_F(EventWriterTest, ProgressWithUnknownEtaAndRateWritesNull) {
  writer_.progress(0, 10, 0, 1, std::numeric_limits<double>::quiet_NaN(), std::nullopt);
  const json e = only_event(path_);
  EXPECT_TRUE(e.at("samples_per_s").is_null());
  EXPECT_TRUE(e.at("eta_s").is_null());
}

TEST_F(EventWriterTest, Metric) {
  writer_.metric(7, "val/psnr", 31.5);
  const json e = only_event(path_);
  expect_envelope(e, "metric", 2);
  EXPECT_EQ(e.at("step"), 7);
  EXPECT_EQ(e.at("name"), "val/psnr");
  EXPECT_DOUBLE_EQ(e.at("value").get<double>(), 31.5);
  EXPECT_FALSE(e.contains("nonfinite"));
}

TEST_F(EventWriterTest, NonFiniteMetricsAreValidJsonWithMarker) {
  writer_.metric(1, "train/loss", std::numeric_limits<double>::quiet_NaN());
  writer_.metric(2, "train/loss", std::numeric_limits<double>::infinity());
  writer_.metric(3, "train/loss", -std::numeric_limits<double>::infinity());
  const auto lines = lines_of(path_);
  ASSERT_EQ(lines.size(), 3u);
  const char* expected[] = {"nan", "inf", "-inf"};
  for (int i = 0; i < 3; ++i) {
    const json e = json::parse(lines[i]);
    EXPECT_TRUE(e.at("value").is_null()) << lines[i];
    EXPECT_EQ(e.at("nonfinite"), expected[i]);
    EXPECT_EQ(e.at("step"), i + 1);
  }
}

TEST_F(EventWriterTest, Log) {
  writer_.log(LogLevel::warn, "loss is rising");
  const json e = only_event(path_);
  expect_envelope(e, "log", 2);
  EXPECT_EQ(e.at("level"), "warn");
  EXPECT_EQ(e.at("message"), "loss is rising");
}

TEST_F(EventWriterTest, InvalidUtf8AndControlCharactersStayOneValidLine) {
  const std::string message = std::string("bad \xff\xfe bytes, cut \xe2\x82 and\nnew line \x01 \"quoted\"");
  writer_.log(LogLevel::error, message);
  writer_.artifact(std::string("out/\xc3(.nii.gz"), "volume", 1);
  const auto lines = lines_of(path_);
  ASSERT_EQ(lines.size(), 2u);
  const json e = json::parse(lines[0]);
  const std::string got = e.at("message");
  EXPECT_NE(got.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD replaced the bad bytes
  EXPECT_NE(got.find("\nnew line"), std::string::npos);    // the newline survives, escaped on disk
  EXPECT_NE(got.find("\"quoted\""), std::string::npos);
  EXPECT_NO_THROW(json::parse(lines[1]));
}

TEST_F(EventWriterTest, Checkpoint) {
  writer_.checkpoint("checkpoints/best-val_psnr-31.5.pt", 400, CheckpointKind::best, "val/psnr", 31.5);
  writer_.checkpoint("checkpoints/last.pt", 500, CheckpointKind::last);
  const auto lines = lines_of(path_);
  ASSERT_EQ(lines.size(), 2u);
  const json best = json::parse(lines[0]);
  expect_envelope(best, "checkpoint", 2);
  EXPECT_EQ(best.at("path"), "checkpoints/best-val_psnr-31.5.pt");
  EXPECT_EQ(best.at("step"), 400);
  EXPECT_EQ(best.at("kind"), "best");
  EXPECT_EQ(best.at("metric"), "val/psnr");
  EXPECT_DOUBLE_EQ(best.at("value").get<double>(), 31.5);
  const json last = json::parse(lines[1]);
  EXPECT_EQ(last.at("kind"), "last");
  EXPECT_FALSE(last.contains("metric"));
  EXPECT_FALSE(last.contains("value"));
}

TEST_F(EventWriterTest, Artifact) {
  writer_.artifact("output/image_seed3_rank0.nii.gz", "volume", 900,
                   {{"seed", 3}, {"shape", std::vector<std::int64_t>{64, 64, 64}}, {"spacing", std::vector<double>{1.5, 1.5, 2.0}}});
  const json e = only_event(path_);
  expect_envelope(e, "artifact", 2);
  EXPECT_EQ(e.at("path"), "output/image_seed3_rank0.nii.gz");
  EXPECT_EQ(e.at("kind"), "volume");
  EXPECT_EQ(e.at("step"), 900);
  EXPECT_EQ(e.at("extra").at("seed"), 3);
  EXPECT_EQ(e.at("extra").at("shape"), json::array({64, 64, 64}));
  EXPECT_DOUBLE_EQ(e.at("extra").at("spacing")[2].get<double>(), 2.0);
}

TEST_F(EventWriterTest, Restart) {
  writer_.restart(2, "rank 1 exited with code 137");
  const json e = only_event(path_);
  expect_envelope(e, "restart", 2);
  EXPECT_EQ(e.at("attempt"), 2);
  EXPECT_EQ(e.at("reason"), "rank 1 exited with code 137");
}

TEST_F(EventWriterTest, RunFinished) {
  writer_.run_finished("completed", {{"val/psnr", 31.5}, {"train/loss", std::nan("")}}, 3600.5);
  const json e = only_event(path_);
  expect_envelope(e, "run_finished", 2);
  EXPECT_EQ(e.at("status"), "completed");
  EXPECT_DOUBLE_EQ(e.at("metrics").at("val/psnr").get<double>(), 31.5);
  EXPECT_TRUE(e.at("metrics").at("train/loss").is_null());
  EXPECT_EQ(e.at("metrics").size(), 2u);
  EXPECT_DOUBLE_EQ(e.at("duration_s").get<double>(), 3600.5);
}

TEST_F(EventWriterTest, RunFailed) {
  writer_.run_failed(ErrorKind::data, "data/a.nii.gz: not a NIfTI file", 3);
  const json e = only_event(path_);
  expect_envelope(e, "run_failed", 2);
  EXPECT_EQ(e.at("error"), "data");
  EXPECT_EQ(e.at("message"), "data/a.nii.gz: not a NIfTI file");
  EXPECT_EQ(e.at("exit_code"), 3);
}

TEST_F(EventWriterTest, EmitRejectsReservedFields) {
  writer_.emit("stage", {{"stage", "encode"}, {"status", "started"}});
  const json e = only_event(path_);
  expect_envelope(e, "stage", 2);
  EXPECT_EQ(e.at("stage"), "encode");
  EXPECT_THROW(writer_.emit("stage", {{"time", "now"}}), UsageError);
  EXPECT_THROW(writer_.emit("stage", {{"a", 1}, {"a", 2}}), UsageError);
  EXPECT_EQ(lines_of(path_).size(), 1u);  // nothing written for the refused events
}

TEST(EventWriter, AppendsToAnExistingStream) {
  test::TempDir dir("events");
  const auto path = dir / "events.jsonl";
  { EventWriter({.path = path}).restart(1, "first"); }
  { EventWriter({.path = path, .rank = -1}).restart(2, "second"); }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(json::parse(lines[0]).at("reason"), "first");
  EXPECT_EQ(json::parse(lines[1]).at("rank"), -1);
}

TEST(EventWriter, UnopenablePathThrows) {
  test::TempDir dir("events");
  test::write_bytes(dir / "file", "x");
  EXPECT_THROW(EventWriter({.path = dir / "file" / "events.jsonl"}), RuntimeError);
  EXPECT_THROW(EventWriter({.path = {}}), UsageError);
}

TEST(EventWriter, ConcurrentEmitsGiveOnlyWholeLines) {
  test::TempDir dir("events");
  const auto path = dir / "events.jsonl";
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 300;
  {
    EventWriter writer({.path = path});
    // Two writers on one file, as the launcher and rank 0 share events.jsonl.
    EventWriter second({.path = path, .rank = -1});
    const std::string long_text(3000, 'x');  // long lines make torn writes likely if they could happen
    std::vector<std::thread> threads;
    for (int t = 0; t < k_threads; ++t)
      threads.emplace_back([&, t] {
        EventWriter& w = (t % 2 == 0) ? writer : second;
        for (int i = 0; i < k_per_thread; ++i) {
          if (i % 3 == 0)
            w.log(LogLevel::info, long_text + std::to_string(t));
          else
            w.metric(t * k_per_thread + i, "train/loss", i * 0.5);
        }
      });
    for (auto& th : threads) th.join();
  }
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(k_threads * k_per_thread));
  std::set<std::int64_t> steps;
  for (const auto& line : lines) {
    const json e = json::parse(line);
    if (e.at("type") == "metric") steps.insert(e.at("step").get<std::int64_t>());
    else EXPECT_EQ(e.at("message").get<std::string>().size(), 3001u);
  }
  EXPECT_EQ(steps.size(), static_cast<std::size_t>(k_threads * (k_per_thread - k_per_thread / 3)));
}

TEST(EventWriter, EchoesToStdoutWhenAsked) {
  test::TempDir dir("events");
  const auto captured = dir / "stdout.txt";
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  {
    EventWriter quiet({.path = dir / "a.jsonl"});
    quiet.metric(1, "lr", 0.001);
    EventWriter loud({.path = dir / "b.jsonl", .echo_stdout = true});
    loud.metric(2, "lr", 0.002);
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  const std::string out = test::read_bytes(captured);
  EXPECT_EQ(out, test::read_bytes(dir / "b.jsonl"));
  EXPECT_EQ(json::parse(out).at("step"), 2);
}

TEST(EventWriter, MetricsAlsoGoToAttachedTensorBoard) {
  test::TempDir dir("events");
  EventWriter writer({.path = dir / "events.jsonl"});
  auto tb = std::make_shared<TensorBoardWriter>(dir / "tb");
  writer.metric(1, "train/loss", 0.75);  // before attaching: not in TensorBoard
  writer.attach_tensorboard(tb);
  writer.metric(2, "train/loss", 0.5);
  writer.metric(2, "val/ssim", 0.875);
  writer.log(LogLevel::info, "not a scalar");
  tb->flush();
  const auto scalars = read_tensorboard_scalars(tb->path());
  ASSERT_EQ(scalars.size(), 2u);
  EXPECT_EQ(scalars[0].tag, "train/loss");
  EXPECT_EQ(scalars[0].step, 2);
  EXPECT_FLOAT_EQ(scalars[0].value, 0.5f);
  EXPECT_EQ(scalars[1].tag, "val/ssim");
  EXPECT_FLOAT_EQ(scalars[1].value, 0.875f);
}

}  // namespace
// Issue 19.6: a write that fails part-way (ENOSPC; here a file-size limit,
// which cuts a write the same way) left half a line, and the next event was
// glued onto it: both were lost to every reader.
TEST(EventWriterFailure, ALineTornByAFailedWriteDoesNotSwallowTheNextEvent) {
  test::TempDir dir("events_torn");
  const auto path = dir / "events.jsonl";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    int code = 0;
    try {
      EventWriter w({path, 0, false});
      w.log(LogLevel::info, "first");
      rlimit limit{};
      ::getrlimit(RLIMIT_FSIZE, &limit);
      const rlimit tight{static_cast<rlim_t>(std::filesystem::file_size(path) + 10), limit.rlim_max};
      ::setrlimit(RLIMIT_FSIZE, &tight);
      try {
        w.log(LogLevel::info, "second, cut after ten bytes");
        code = 10;  // the write should have failed
      } catch (const StorageError&) {  // EFBIG, like ENOSPC: not worth a restart
      }
      ::setrlimit(RLIMIT_FSIZE, &limit);
      w.log(LogLevel::info, "third");
    } catch (...) {
      code = 11;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child died by signal " << WTERMSIG(status);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 3u) << test::read_bytes(path);
  EXPECT_EQ(json::parse(lines[0])["message"], "first");
  EXPECT_EQ(lines[1].size(), 10u);  // the fragment, a line of its own
  EXPECT_FALSE(json::accept(lines[1]));
  ASSERT_TRUE(json::accept(lines[2])) << lines[2];
  EXPECT_EQ(json::parse(lines[2])["message"], "third");
}

}  // namespace medsynth
