// TensorBoard event files: the bytes follow the TFRecord + tensorflow.Event
// layout (checked against hand-encoded protobuf), scalars round-trip through
// the reader, and the reader catches any damaged byte.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "events/crc32c.hpp"
#include "support/tensorboard_reader.hpp"
#include "events/tensorboard_writer.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

std::uint64_t le64(const std::string& s, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

std::uint32_t le32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= std::uint32_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

std::string le_bytes(std::uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}

// Splits a file into record payloads by the framing alone (no CRC checks).
std::vector<std::string> payloads(const std::string& file) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos + 12 <= file.size()) {
    const auto len = le64(file, pos);
    out.push_back(file.substr(pos + 12, len));
    pos += 12 + len + 4;
  }
  EXPECT_EQ(pos, file.size());
  return out;
}

TEST(TensorBoardWriter, CreatesNamedFileWithVersionRecord) {
  test::TempDir dir("tb");
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir / "run" / "tb"});
    path = tb.path();
  }
  EXPECT_EQ(path.parent_path(), dir / "run" / "tb");
  EXPECT_TRUE(std::regex_match(path.filename().string(), std::regex(R"(events\.out\.tfevents\.\d{10,}\..+)")))
      << path;

  const auto bytes = test::read_bytes(path);
  const auto records = payloads(bytes);
  ASSERT_EQ(records.size(), 1u);
  // Event{wall_time (1, fixed64), file_version (3, bytes) = "brain.Event:2"}
  const std::string& event = records[0];
  ASSERT_EQ(event.size(), 1u + 8u + 2u + 13u);
  EXPECT_EQ(static_cast<unsigned char>(event[0]), 0x09);
  EXPECT_EQ(event.substr(9), std::string("\x1a\x0d") + "brain.Event:2");
  const double wall_time = std::bit_cast<double>(le64(event, 1));
  EXPECT_GT(wall_time, 1.6e9);  // after 2020: a plausible Unix time, not garbage
  // Framing: masked CRCs of the length bytes and of the data.
  EXPECT_EQ(le32(bytes, 8), mask_crc32c(crc32c(bytes.substr(0, 8))));
  EXPECT_EQ(le32(bytes, 12 + event.size()), mask_crc32c(crc32c(event)));

  const auto events = read_tensorboard_events(path);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  EXPECT_DOUBLE_EQ(events[0].wall_time, wall_time);
}

TEST(TensorBoardWriter, ScalarEventBytesMatchHandEncodedProtobuf) {
  test::TempDir dir("tb");
  TensorBoardWriter tb({.dir = dir.path()});
  tb.add_scalar("a", 1.0, 3, 2.0);
  tb.flush();
  const auto records = payloads(test::read_bytes(tb.path()));
  ASSERT_EQ(records.size(), 2u);
  // Summary.Value{tag=1:"a", simple_value=2:1.0f}; Summary{value=1}; Event{wall_time=1, step=2, summary=5}
  const std::string value = std::string("\x0a\x01", 2) + "a" + "\x15" + le_bytes(std::bit_cast<std::uint32_t>(1.0f), 4);
  const std::string summary = std::string("\x0a") + char(value.size()) + value;
  const std::string expected = std::string("\x09") + le_bytes(std::bit_cast<std::uint64_t>(2.0), 8) +
                               std::string("\x10\x03", 2) + "\x2a" + char(summary.size()) + summary;
  EXPECT_EQ(records[1], expected);
}

TEST(TensorBoardWriter, ScalarsRoundTrip) {
  test::TempDir dir("tb");
  struct Point {
    std::string tag;
    double value;
    std::int64_t step;
    double wall;
  };
  const std::vector<Point> points = {{"train/loss", 0.8125, 0, 1700000000.25},
                                     {"train/loss", 0.5, 1, 1700000001.5},
                                     {"val/psnr", 31.25, 1, 1700000002.0},
                                     {"lr", 1e-4, 300, 1700000003.0},
                                     {"throughput/vox_per_s", 2.5e7, 1LL << 40, 1700000004.0},
                                     {"odd/negative_step", -3.0, -7, 1700000005.0}};
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir.path(), .flush_every_records = 2});
    for (const auto& p : points) tb.add_scalar(p.tag, p.value, p.step, p.wall);
    tb.add_scalar("train/loss", std::nan(""), 2, 1700000006.0);
    path = tb.path();
  }
  const auto scalars = read_tensorboard_scalars(path);
  ASSERT_EQ(scalars.size(), points.size() + 1);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(scalars[i].tag, points[i].tag);
    EXPECT_EQ(scalars[i].step, points[i].step);
    EXPECT_FLOAT_EQ(scalars[i].value, static_cast<float>(points[i].value));
    EXPECT_DOUBLE_EQ(scalars[i].wall_time, points[i].wall);
  }
  EXPECT_TRUE(std::isnan(scalars.back().value));
}

TEST(TensorBoardWriter, FlushMakesScalarsVisibleWhileOpen) {
  test::TempDir dir("tb");
  TensorBoardWriter tb({.dir = dir.path(), .flush_every_records = 1000, .flush_every_s = 1e9});
  tb.add_scalar("train/loss", 0.25, 5);
  EXPECT_TRUE(read_tensorboard_scalars(tb.path()).empty());  // still buffered
  tb.flush();
  const auto scalars = read_tensorboard_scalars(tb.path());
  ASSERT_EQ(scalars.size(), 1u);
  EXPECT_EQ(scalars[0].step, 5);
}

TEST(TensorBoardWriter, TwoWritersInOneDirectoryGetDistinctFiles) {
  test::TempDir dir("tb");
  TensorBoardWriter a({.dir = dir.path()});
  TensorBoardWriter b({.dir = dir.path()});
  EXPECT_NE(a.path(), b.path());
}

TEST(TensorBoardWriter, RejectsBadOptions) {
  test::TempDir dir("tb");
  EXPECT_THROW(TensorBoardWriter({.dir = {}}), UsageError);
  EXPECT_THROW(TensorBoardWriter({.dir = dir.path(), .flush_every_records = 0}), UsageError);
}

TEST(TensorBoardReader, AnyFlippedByteIsDetected) {
  test::TempDir dir("tb");
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir.path()});
    tb.add_scalar("train/loss", 0.5, 1, 1700000000.0);
    tb.add_scalar("val/ssim", 0.75, 2, 1700000001.0);
    path = tb.path();
  }
  const std::string good = test::read_bytes(path);
  ASSERT_EQ(read_tensorboard_scalars(path).size(), 2u);
  const auto corrupt = dir / "corrupt.tfevents";
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    test::write_bytes(corrupt, bad);
    try {
      read_tensorboard_events(corrupt);
      ADD_FAILURE() << "flipped byte " << i << " was not detected";
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), corrupt.string());
      EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    }
  }
}

TEST(TensorBoardReader, NamesTheOffsetOfTheDamagedRecord) {
  test::TempDir dir("tb");
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir.path()});
    tb.add_scalar("x", 1.0, 1);
    path = tb.path();
  }
  std::string bytes = test::read_bytes(path);
  const std::size_t second = 12 + le64(bytes, 0) + 4;
  bytes[second + 12] = static_cast<char>(bytes[second + 12] ^ 0x80);  // first data byte of record 2
  const auto corrupt = dir / "corrupt";
  test::write_bytes(corrupt, bytes);
  try {
    read_tensorboard_events(corrupt);
    FAIL() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(second) + ":"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("data CRC"), std::string::npos) << e.what();
  }
}

TEST(TensorBoardReader, TruncatedFileIsAnError) {
  test::TempDir dir("tb");
  std::filesystem::path path;
  {
    TensorBoardWriter tb({.dir = dir.path()});
    tb.add_scalar("x", 1.0, 1);
    path = tb.path();
  }
  const std::string bytes = test::read_bytes(path);
  for (std::size_t cut : {bytes.size() - 1, bytes.size() - 4, bytes.size() - 10}) {
    test::write_bytes(dir / "cut", bytes.substr(0, cut));
    EXPECT_THROW(read_tensorboard_events(dir / "cut"), DataError) << cut;
  }
  EXPECT_THROW(read_tensorboard_events(dir / "missing"), DataError);
}

}  // namespace
}  // namespace medsynth
