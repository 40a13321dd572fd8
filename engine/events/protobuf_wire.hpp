// The few pieces of the protobuf wire format that TensorBoard event files need
// (varint, fixed64, fixed32, length-delimited), written by hand so the engine
// needs neither libprotobuf nor TensorBoard's .proto files (docs/events.md).
// Internal to engine/events: used by tensorboard_writer.cpp and
// tests/support/tensorboard_reader.cpp only (the reader is a test tool).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace medsynth::protowire {

enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

void append_varint(std::string& out, std::uint64_t value);
void append_tag(std::string& out, std::uint32_t field, WireType type);

// Fields of the types the Event/Summary messages use.
void append_int64_field(std::string& out, std::uint32_t field, std::int64_t value);
void append_double_field(std::string& out, std::uint32_t field, double value);
void append_float_field(std::string& out, std::uint32_t field, float value);
void append_bytes_field(std::string& out, std::uint32_t field, std::string_view bytes);

void append_fixed32_le(std::string& out, std::uint32_t value);
void append_fixed64_le(std::string& out, std::uint64_t value);
std::uint32_t load_fixed32_le(const char* p);
std::uint64_t load_fixed64_le(const char* p);

// One decoded field. For varint/fixed types `number` holds the raw bits; for
// length-delimited fields `bytes` views into the parsed buffer.
struct WireField {
  std::uint32_t field = 0;
  WireType type = WireType::varint;
  std::uint64_t number = 0;
  std::string_view bytes;

  std::int64_t as_int64() const { return static_cast<std::int64_t>(number); }
  double as_double() const;
  float as_float() const;
};

// Walks the fields of one message. Throws medsynth::RuntimeError on malformed
// input (callers add the file name and offset); unknown wire types (groups)
// are malformed for our messages.
class WireReader {
 public:
  explicit WireReader(std::string_view message) : rest_(message) {}
  // False at the end of the message.
  bool next(WireField& out);

 private:
  std::uint64_t read_varint();
  std::string_view take(std::size_t n);
  std::string_view rest_;
};

}  // namespace medsynth::protowire
