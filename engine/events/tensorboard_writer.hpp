// Writes TensorBoard event files (tb/ of a run directory) so that a plain
// `tensorboard --logdir runs` shows our scalars without Python on the training
// side. Called by EventWriter (every metric() goes here when attached) and by
// anything that wants a scalar curve. Thread-safe: one mutex per writer.
//
// Format: TFRecord framing around hand-encoded tensorflow.Event protobufs
// (see docs/events.md for why there is no protobuf dependency).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

namespace medsynth {

struct TensorBoardWriterOptions {
  std::filesystem::path dir{};   // created if missing, e.g. <run>/tb
  int flush_every_records = 10;  // a crash loses at most this many scalars...
  double flush_every_s = 2.0;    // ...and TensorBoard sees a slow run's points within this (checked on write)
};

class TensorBoardWriter {
 public:
  // Creates dir and events.out.tfevents.<unix seconds>.<hostname>[.N] in it (a
  // suffix .N only if that name is taken) and writes the file_version record.
  // Throws UsageError for bad options, RuntimeError if the file cannot be written.
  explicit TensorBoardWriter(TensorBoardWriterOptions options);
  // The same with default flushing.
  explicit TensorBoardWriter(const std::filesystem::path& dir) : TensorBoardWriter(TensorBoardWriterOptions{.dir = dir}) {}
  // Flushes; errors are swallowed here (a destructor cannot throw): call
  // flush() first to see them.
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  // TensorBoard stores scalars as float32; NaN/Inf are kept (TensorBoard draws them).
  void add_scalar(std::string_view tag, double value, std::int64_t step);
  void add_scalar(std::string_view tag, double value, std::int64_t step, double wall_time_s);

  // A grayscale PNG of width x height as an image summary (colorspace 1):
  // TensorBoard's Images tab shows one slider per tag over the steps.
  void add_gray_png(std::string_view tag, int width, int height, std::string_view png, std::int64_t step);

  // Writes buffered records to the file. Throws RuntimeError on a write error.
  void flush();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  void write_value(std::string_view summary_value, std::int64_t step, double wall_time_s);
  void append_record_locked(std::string_view event_bytes);
  void flush_locked();

  TensorBoardWriterOptions options_;
  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
  std::string pending_;
  int pending_records_ = 0;
  std::chrono::steady_clock::time_point last_flush_;
};

// The record framing TensorBoard and TensorFlow read: uint64 length (LE),
// masked CRC32C of the length bytes, the data, masked CRC32C of the data.
std::string frame_tfrecord(std::string_view data);

}  // namespace medsynth
