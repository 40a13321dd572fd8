#include "support/tensorboard_reader.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include "core/error.hpp"
#include "events/crc32c.hpp"
#include "events/protobuf_wire.hpp"

namespace medsynth {
namespace {

using protowire::WireField;
using protowire::WireReader;
using protowire::WireType;

std::string hex32(std::uint32_t v) {
  std::ostringstream ss;
  ss << "0x" << std::hex << v;
  return ss.str();
}

void expect_type(const WireField& f, WireType type, const char* name) {
  if (f.type != type) throw RuntimeError(std::string(name) + " has wire type " + std::to_string(int(f.type)));
}

TbImage decode_image(std::string_view bytes) {
  TbImage image;
  WireReader reader(bytes);
  WireField f;
  while (reader.next(f)) {
    if (f.field == 4) {
      expect_type(f, WireType::length_delimited, "Summary.Image.encoded_image_string");
      image.encoded.assign(f.bytes);
    } else if (f.field >= 1 && f.field <= 3) {
      expect_type(f, WireType::varint, "Summary.Image.height/width/colorspace");
      (f.field == 1 ? image.height : f.field == 2 ? image.width : image.colorspace) = static_cast<int>(f.as_int64());
    }
  }
  return image;
}

TbValue decode_value(std::string_view bytes) {
  TbValue value;
  WireReader reader(bytes);
  WireField f;
  while (reader.next(f)) {
    if (f.field == 1) {
      expect_type(f, WireType::length_delimited, "Summary.Value.tag");
      value.tag.assign(f.bytes);
    } else if (f.field == 2) {
      expect_type(f, WireType::fixed32, "Summary.Value.simple_value");
      value.simple_value = f.as_float();
    } else if (f.field == 4) {
      expect_type(f, WireType::length_delimited, "Summary.Value.image");
      value.image = decode_image(f.bytes);
    }
  }
  return value;
}

TbEvent decode_event(std::string_view bytes) {
  TbEvent event;
  WireReader reader(bytes);
  WireField f;
  while (reader.next(f)) {
    switch (f.field) {
      case 1:
        expect_type(f, WireType::fixed64, "Event.wall_time");
        event.wall_time = f.as_double();
        break;
      case 2:
        expect_type(f, WireType::varint, "Event.step");
        event.step = f.as_int64();
        break;
      case 3:
        expect_type(f, WireType::length_delimited, "Event.file_version");
        event.file_version.assign(f.bytes);
        break;
      case 5: {
        expect_type(f, WireType::length_delimited, "Event.summary");
        WireReader summary(f.bytes);
        WireField v;
        while (summary.next(v))
          if (v.field == 1) {
            expect_type(v, WireType::length_delimited, "Summary.value");
            event.values.push_back(decode_value(v.bytes));
          }
        break;
      }
      default:
        break;  // graph_def, log_message, ...: not ours, skipped
    }
  }
  return event;
}

}  // namespace

std::vector<TbEvent> read_tensorboard_events(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path.string(), "cannot open TensorBoard event file");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path.string(), "cannot read TensorBoard event file");

  std::vector<TbEvent> events;
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::string where = "record at offset " + std::to_string(pos) + ": ";
    const std::size_t remaining = data.size() - pos;
    if (remaining < 12) throw DataError(path.string(), where + "truncated record header");
    const char* header = data.data() + pos;
    const std::uint32_t length_crc = unmask_crc32c(protowire::load_fixed32_le(header + 8));
    if (crc32c_extend(0, header, 8) != length_crc)
      throw DataError(path.string(), where + "length CRC mismatch (stored " + hex32(length_crc) + ")");
    const std::uint64_t length = protowire::load_fixed64_le(header);
    if (length > remaining - 12 || remaining - 12 - length < 4)
      throw DataError(path.string(), where + "truncated record (" + std::to_string(length) + " data bytes declared)");
    const std::string_view payload(data.data() + pos + 12, length);
    const std::uint32_t data_crc = unmask_crc32c(protowire::load_fixed32_le(payload.data() + length));
    if (crc32c(payload) != data_crc)
      throw DataError(path.string(), where + "data CRC mismatch (stored " + hex32(data_crc) + ")");
    try {
      events.push_back(decode_event(payload));
    } catch (const RuntimeError& e) {
      throw DataError(path.string(), where + "malformed Event: " + e.what());
    }
    events.back().offset = pos;
    pos += 12 + length + 4;
  }
  return events;
}

std::vector<TbScalar> read_tensorboard_scalars(const std::filesystem::path& path) {
  std::vector<TbScalar> scalars;
  for (const auto& event : read_tensorboard_events(path))
    for (const auto& value : event.values)
      if (value.simple_value) scalars.push_back({event.wall_time, event.step, value.tag, *value.simple_value});
  return scalars;
}

std::vector<TbImageValue> read_tensorboard_images(const std::filesystem::path& path) {
  std::vector<TbImageValue> images;
  for (const auto& event : read_tensorboard_events(path))
    for (const auto& value : event.values)
      if (value.image) images.push_back({event.step, value.tag, *value.image});
  return images;
}

}  // namespace medsynth
