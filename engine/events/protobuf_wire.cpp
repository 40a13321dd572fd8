#include "events/protobuf_wire.hpp"

#include <bit>
#include <cstring>

#include "core/error.hpp"

namespace medsynth::protowire {

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80u) {
    out.push_back(static_cast<char>((value & 0x7Fu) | 0x80u));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_tag(std::string& out, std::uint32_t field, WireType type) {
  append_varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(type));
}

void append_fixed32_le(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

void append_fixed64_le(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
}

std::uint32_t load_fixed32_le(const char* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::uint64_t load_fixed64_le(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// Negative int64 values are sign-extended to 10 varint bytes, as protobuf does.
void append_int64_field(std::string& out, std::uint32_t field, std::int64_t value) {
  append_tag(out, field, WireType::varint);
  append_varint(out, static_cast<std::uint64_t>(value));
}

void append_double_field(std::string& out, std::uint32_t field, double value) {
  append_tag(out, field, WireType::fixed64);
  append_fixed64_le(out, std::bit_cast<std::uint64_t>(value));
}

void append_float_field(std::string& out, std::uint32_t field, float value) {
  append_tag(out, field, WireType::fixed32);
  append_fixed32_le(out, std::bit_cast<std::uint32_t>(value));
}

void append_bytes_field(std::string& out, std::uint32_t field, std::string_view bytes) {
  append_tag(out, field, WireType::length_delimited);
  append_varint(out, bytes.size());
  out.append(bytes);
}

double WireField::as_double() const { return std::bit_cast<double>(number); }

float WireField::as_float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(number)); }

std::uint64_t WireReader::read_varint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (rest_.empty()) throw RuntimeError("truncated varint");
    const auto byte = static_cast<unsigned char>(rest_.front());
    rest_.remove_prefix(1);
    value |= static_cast<std::uint64_t>(byte & 0x7Fu) << shift;
    if ((byte & 0x80u) == 0) return value;
  }
  throw RuntimeError("varint longer than 10 bytes");
}

std::string_view WireReader::take(std::size_t n) {
  if (n > rest_.size()) throw RuntimeError("field of " + std::to_string(n) + " bytes runs past the end of the message");
  auto out = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return out;
}

bool WireReader::next(WireField& out) {
  if (rest_.empty()) return false;
  const std::uint64_t key = read_varint();
  out = WireField{};
  out.field = static_cast<std::uint32_t>(key >> 3);
  if (out.field == 0) throw RuntimeError("field number 0");
  switch (key & 7u) {
    case 0:
      out.type = WireType::varint;
      out.number = read_varint();
      break;
    case 1:
      out.type = WireType::fixed64;
      out.number = load_fixed64_le(take(8).data());
      break;
    case 2:
      out.type = WireType::length_delimited;
      out.bytes = take(read_varint());
      break;
    case 5:
      out.type = WireType::fixed32;
      out.number = load_fixed32_le(take(4).data());
      break;
    default:
      throw RuntimeError("unsupported wire type " + std::to_string(key & 7u));
  }
  return true;
}

}  // namespace medsynth::protowire
