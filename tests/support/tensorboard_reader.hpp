// Reads TensorBoard event files back: for tests (round trips of
// TensorBoardWriter; moved here from engine/events, issue 33: the engine
// writes TensorBoard files and never reads them).
// Strict: every record's two CRCs are checked and any damage, including a
// truncated last record, is an error naming the file and byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace medsynth {

// Summary.Image: the picture as its encoded file (PNG for ours).
struct TbImage {
  int height = 0;
  int width = 0;
  int colorspace = 0;  // 1 gray, 3 RGB, 4 RGBA
  std::string encoded;
};

struct TbValue {
  std::string tag;
  std::optional<float> simple_value;  // empty for images, histograms, tensors
  std::optional<TbImage> image;
};

// One tensorflow.Event, with the fields we write (others are skipped).
struct TbEvent {
  std::uint64_t offset = 0;  // byte offset of its record in the file
  double wall_time = 0.0;
  std::int64_t step = 0;
  std::string file_version;  // set only in the first record ("brain.Event:2")
  std::vector<TbValue> values;
};

struct TbScalar {
  double wall_time = 0.0;
  std::int64_t step = 0;
  std::string tag;
  float value = 0.0f;
};

// Throws DataError (path + "record at offset N: ...") on a CRC mismatch, a
// truncated record or a malformed message.
std::vector<TbEvent> read_tensorboard_events(const std::filesystem::path& path);

// Every simple_value in the file, in file order.
std::vector<TbScalar> read_tensorboard_scalars(const std::filesystem::path& path);

struct TbImageValue {
  std::int64_t step = 0;
  std::string tag;
  TbImage image;
};

// Every image in the file, in file order.
std::vector<TbImageValue> read_tensorboard_images(const std::filesystem::path& path);

}  // namespace medsynth
