#include "events/tensorboard_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "events/crc32c.hpp"
#include "events/protobuf_wire.hpp"

namespace medsynth {
namespace {

// Field numbers of tensorflow.Event / Summary / Summary.Value (tensorflow/core/util/event.proto,
// tensorflow/core/framework/summary.proto).
constexpr std::uint32_t k_event_wall_time = 1;
constexpr std::uint32_t k_event_step = 2;
constexpr std::uint32_t k_event_file_version = 3;
constexpr std::uint32_t k_event_summary = 5;
constexpr std::uint32_t k_summary_value = 1;
constexpr std::uint32_t k_value_tag = 1;
constexpr std::uint32_t k_value_simple_value = 2;
constexpr std::uint32_t k_value_image = 4;
constexpr std::uint32_t k_image_height = 1;
constexpr std::uint32_t k_image_width = 2;
constexpr std::uint32_t k_image_colorspace = 3;
constexpr std::uint32_t k_image_encoded = 4;
constexpr std::int64_t k_colorspace_gray = 1;

double now_unix_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string hostname_for_file_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  std::string name(buf);
  for (char& c : name)
    if (c == '/' || c == '\\') c = '_';
  return name;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string frame_tfrecord(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  protowire::append_fixed64_le(out, data.size());
  protowire::append_fixed32_le(out, mask_crc32c(crc32c(std::string_view(out.data(), 8))));
  out.append(data);
  protowire::append_fixed32_le(out, mask_crc32c(crc32c(data)));
  return out;
}

TensorBoardWriter::TensorBoardWriter(TensorBoardWriterOptions options) : options_(std::move(options)) {
  if (options_.dir.empty()) throw UsageError("TensorBoardWriterOptions.dir: must not be empty");
  if (options_.flush_every_records < 1)
    throw UsageError("TensorBoardWriterOptions.flush_every_records: must be >= 1 (got " +
                     std::to_string(options_.flush_every_records) + ")");
  if (!(options_.flush_every_s >= 0.0))
    throw UsageError("TensorBoardWriterOptions.flush_every_s: must be >= 0");

  std::error_code ec;
  std::filesystem::create_directories(options_.dir, ec);
  if (ec) throw RuntimeError(options_.dir.string() + ": cannot create TensorBoard directory: " + ec.message());

  const double wall_time = now_unix_s();
  const std::string base = "events.out.tfevents." + std::to_string(static_cast<std::int64_t>(wall_time)) + "." +
                           hostname_for_file_name();
  // O_EXCL: two writers started in the same second (e.g. a restart) must not share a file.
  for (int n = 0; fd_ < 0; ++n) {
    path_ = options_.dir / (n == 0 ? base : base + "." + std::to_string(n));
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && (errno != EEXIST || n >= 1000))
      throw RuntimeError(path_.string() + ": cannot create TensorBoard event file: " + errno_text());
  }

  std::string header;
  protowire::append_double_field(header, k_event_wall_time, wall_time);
  protowire::append_bytes_field(header, k_event_file_version, "brain.Event:2");
  std::lock_guard lock(mutex_);
  append_record_locked(header);
  flush_locked();  // TensorBoard recognises the file as soon as it exists
}

TensorBoardWriter::~TensorBoardWriter() {
  try {
    std::lock_guard lock(mutex_);
    flush_locked();
  } catch (...) {
    // Nothing sensible to do while destroying; flush() reports errors.
  }
  if (fd_ >= 0) ::close(fd_);
}

void TensorBoardWriter::add_scalar(std::string_view tag, double value, std::int64_t step) {
  add_scalar(tag, value, step, now_unix_s());
}

void TensorBoardWriter::add_scalar(std::string_view tag, double value, std::int64_t step, double wall_time_s) {
  std::string summary_value;
  protowire::append_bytes_field(summary_value, k_value_tag, tag);
  protowire::append_float_field(summary_value, k_value_simple_value, static_cast<float>(value));
  write_value(summary_value, step, wall_time_s);
}

void TensorBoardWriter::add_gray_png(std::string_view tag, int width, int height, std::string_view png,
                                     std::int64_t step) {
  std::string image;
  protowire::append_int64_field(image, k_image_height, height);
  protowire::append_int64_field(image, k_image_width, width);
  protowire::append_int64_field(image, k_image_colorspace, k_colorspace_gray);
  protowire::append_bytes_field(image, k_image_encoded, png);
  std::string summary_value;
  protowire::append_bytes_field(summary_value, k_value_tag, tag);
  protowire::append_bytes_field(summary_value, k_value_image, image);
  write_value(summary_value, step, now_unix_s());
}

// One Summary.Value as its own Event.
void TensorBoardWriter::write_value(std::string_view summary_value, std::int64_t step, double wall_time_s) {
  std::string summary;
  protowire::append_bytes_field(summary, k_summary_value, summary_value);
  std::string event;
  protowire::append_double_field(event, k_event_wall_time, wall_time_s);
  protowire::append_int64_field(event, k_event_step, step);
  protowire::append_bytes_field(event, k_event_summary, summary);

  std::lock_guard lock(mutex_);
  append_record_locked(event);
  const auto since_flush = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_flush_).count();
  if (pending_records_ >= options_.flush_every_records || since_flush >= options_.flush_every_s) flush_locked();
}

void TensorBoardWriter::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

void TensorBoardWriter::append_record_locked(std::string_view event_bytes) {
  pending_ += frame_tfrecord(event_bytes);
  ++pending_records_;
}

void TensorBoardWriter::flush_locked() {
  std::size_t done = 0;
  while (done < pending_.size()) {
    const ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = errno_text();
      pending_.erase(0, done);  // keep what was not written for a later retry
      throw RuntimeError(path_.string() + ": cannot write TensorBoard event file: " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  pending_.clear();
  pending_records_ = 0;
  last_flush_ = std::chrono::steady_clock::now();
}

}  // namespace medsynth
