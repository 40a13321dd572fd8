// CRC32C against published check values (RFC 3720 / iSCSI) and the TFRecord
// mask against a bit-by-bit computation written here from the definitions.
#include "events/crc32c.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace medsynth {
namespace {

// Reference CRC32C, one bit at a time, independent of the library's table.
std::uint32_t bitwise_crc32c(const std::string& bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) {
    crc ^= byte;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

std::uint32_t rotate_right(std::uint32_t v, int n) { return (v >> n) | (v << (32 - n)); }

TEST(Crc32c, StandardCheckValue) { EXPECT_EQ(crc32c("123456789"), 0xE3069283u); }

TEST(Crc32c, Rfc3720Vectors) {
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32c(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(Crc32c, MatchesBitwiseReferenceAndExtendsInPieces) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>((i * 131 + 7) & 0xFF));
  EXPECT_EQ(crc32c(data), bitwise_crc32c(data));
  const std::uint32_t first = crc32c_extend(0, data.data(), 333);
  EXPECT_EQ(crc32c_extend(first, data.data() + 333, data.size() - 333), bitwise_crc32c(data));
}

TEST(Crc32c, MaskFollowsTfRecordDefinition) {
  for (const std::string s : {"123456789", "brain.Event:2", "", "\x01\x02\x03"}) {
    const std::uint32_t crc = bitwise_crc32c(s);
    // Definition: rotate right by 15 bits, then add 0xa282ead8 (mod 2^32).
    const std::uint32_t expected = static_cast<std::uint32_t>(rotate_right(crc, 15) + 0xa282ead8u);
    EXPECT_EQ(mask_crc32c(crc32c(s)), expected) << s;
    EXPECT_EQ(unmask_crc32c(mask_crc32c(crc)), crc);
    EXPECT_NE(mask_crc32c(crc), crc);
  }
  // The check value worked by hand: 0xE3069283 rotated right by 15 is
  // 0x2507C60D; plus 0xa282ead8 is 0xC78AB0E5.
  EXPECT_EQ(mask_crc32c(0xE3069283u), 0xC78AB0E5u);
}

}  // namespace
}  // namespace medsynth
