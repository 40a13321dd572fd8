// JSON files one byte over a reader's byte cap, and the check that the
// reader refuses them by their size (core/bounded_json.hpp, issue 50 item 8).
// The file is a valid document followed by spaces, so that only its size can
// make a reader refuse it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "core/error.hpp"

namespace medsynth::test {

inline void write_padded_json(const std::filesystem::path& path, const std::string& document, std::uint64_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out << document;
  const std::string spaces(1 << 20, ' ');
  for (std::uint64_t left = bytes - document.size(); left > 0;) {
    const auto n = static_cast<std::streamsize>(std::min<std::uint64_t>(left, spaces.size()));
    out.write(spaces.data(), n);
    left -= static_cast<std::uint64_t>(n);
  }
}

// Writes `document` padded to cap + 1 bytes at `path`, runs `read`, and
// expects a DataError naming `path`, its size and the cap.
inline void expect_refused_one_byte_over_the_cap(const std::filesystem::path& path, const std::string& document,
                                                 std::uint64_t cap, const std::function<void()>& read) {
  write_padded_json(path, document, cap + 1);
  try {
    read();
    ADD_FAILURE() << path << ": a file over the byte cap was parsed";
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), path.string());
    const std::string expected =
        "is " + std::to_string(cap + 1) + " bytes, over the cap of " + std::to_string(cap) + " bytes";
    EXPECT_NE(e.reason().find(expected), std::string::npos) << e.what();
  }
}

}  // namespace medsynth::test
