// read_bounded_json_file: a stranger's JSON file is refused by its size
// before it is parsed (issue 50 item 8), and read as before under the cap.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "support/oversized_json.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

namespace fs = std::filesystem;

constexpr JsonByteCap k_test_cap{4096, "a test file"};

TEST(BoundedJsonFile, AFileAtTheCapIsReadAndOneByteMoreIsRefusedNamingItsSize) {
  test::TempDir dir("bounded-json");
  const auto at_cap = dir / "at-cap.json";
  test::write_padded_json(at_cap, R"({"a": [1, 2]})", k_test_cap.bytes);
  EXPECT_EQ(read_bounded_json_file(at_cap.string(), k_test_cap, "cannot open")["a"][1], 2);

  const auto over = dir / "over.json";
  test::expect_refused_one_byte_over_the_cap(over, R"({"a": [1, 2]})", k_test_cap.bytes,
                                             [&] { read_bounded_json_file(over.string(), k_test_cap, "cannot open"); });
}

// Issue 50: {"a": 1, "a": 2} is two files to two readers (nlohmann keeps the
// last value, others the first): refused, in any object at any depth; the
// same key in two different objects is fine.
TEST(BoundedJsonFile, ARepeatedKeyInOneObjectIsRefusedNamingIt) {
  for (const char* text : {R"({"a": 1, "a": 2})", R"({"x": {"b": [1, {"c": 0, "c": 0}]}})"}) {
    try {
      parse_bounded_json(std::string(text), "doc.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const DataError& e) {
      EXPECT_EQ(e.path(), "doc.json");
      EXPECT_NE(e.reason().find("repeats the key"), std::string::npos) << e.reason();
    }
  }
  const auto ok =
      parse_bounded_json(std::string(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]})"), "doc.json");
  EXPECT_EQ(ok["c"][1]["k"], 4);
}

TEST(BoundedJsonFile, AMissingFileAndDeepNestingAreStillDataErrors) {
  test::TempDir dir("bounded-json");
  try {
    read_bounded_json_file((dir / "none.json").string(), k_test_cap, "cannot open the test file");
    ADD_FAILURE() << "a missing file was read";
  } catch (const DataError& e) {
    EXPECT_EQ(e.reason(), "cannot open the test file");
  }
  const auto deep = dir / "deep.json";
  test::write_padded_json(deep, std::string(100, '[') + std::string(100, ']'), 200);
  try {
    read_bounded_json_file(deep.string(), k_test_cap, "cannot open");
    ADD_FAILURE() << "a value nested 100 deep was read";
  } catch (const DataError& e) {
    EXPECT_NE(e.reason().find("nests values more than 64 levels deep"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace medsynth
