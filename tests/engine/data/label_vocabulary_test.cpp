// A user's label map (`prepare-label --from map.json`, data/label_vocabulary.hpp)
// read as strictly as a job file: issue 50 item 10 found values past int
// taken modulo 2^32 and keys in other spellings collapsing into one.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.hpp"
#include "data/label_vocabulary.hpp"
#include "support/temp_dir.hpp"

namespace medsynth {
namespace {

std::string refusal_of_map(const test::TempDir& dir, const std::string& text) {
  const std::string path = (dir / "map.json").string();
  std::ofstream(path) << text;
  try {
    label_mapping(path);
  } catch (const DataError& e) {
    EXPECT_EQ(e.path(), path);
    return e.reason();
  }
  return "accepted";
}

// 2^32+1 was read as 1 (liver), 2^64-1 as -1.
TEST(LabelVocabulary, AMaisiIdPastTheRangeOfClassesIsRefusedAsWritten) {
  test::TempDir dir("label-vocabulary");
  EXPECT_EQ(refusal_of_map(dir, R"({"7": 4294967297})"), "entry \"7\": 4294967297 is not a MAISI CT class id");
  EXPECT_EQ(refusal_of_map(dir, R"({"7": 18446744073709551615})"),
            "entry \"7\": 18446744073709551615 is not a MAISI CT class id");
  EXPECT_EQ(refusal_of_map(dir, R"({"7": -4294967295})"), "entry \"7\": -4294967295 is not a MAISI CT class id");
  EXPECT_EQ(refusal_of_map(dir, R"({"7": 1, "8": 0})"), "accepted");
}

// "+1", "01" and "1" were all label 1: whichever came last won, silently.
TEST(LabelVocabulary, ASourceLabelInAnotherSpellingIsRefusedNamingTheKey) {
  test::TempDir dir("label-vocabulary");
  for (const char* key : {"+1", "01", " 1", "1 ", "1e0", "4294967297", "0", "-1", ""}) {
    const std::string why = refusal_of_map(dir, std::string("{\"") + key + "\": 1, \"2\": 3}");
    EXPECT_EQ(why.rfind(std::string("entry \"") + key + "\": a source label must be an integer > 0", 0), 0u)
        << key << ": " << why;
  }
  // Spelled exactly the same twice: nlohmann kept the later class, silently.
  const std::string repeated = refusal_of_map(dir, R"({"1": 1, "2": 3, "1": 5})");
  EXPECT_NE(repeated.find("repeats the key \"1\""), std::string::npos) << repeated;
  const std::string path = (dir / "map.json").string();
  std::ofstream(path) << R"({"1": 1, "10": 3, "999999999": 0})";
  const LabelMapping m = label_mapping(path);
  ASSERT_EQ(m.labels.size(), 3u);
  EXPECT_EQ(m.labels.at(10).maisi, 3);
}

}  // namespace
}  // namespace medsynth
