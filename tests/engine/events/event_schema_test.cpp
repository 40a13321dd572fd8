// The event contract (engine/events/event_schema.hpp) is the only list of
// event types: the writer refuses any other, and docs/events.md documents
// exactly these. (The console's side: tests/app/event_stream_reader_test.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "contract/event_schema.hpp"
#include "events/event_writer.hpp"
#include "support/temp_dir.hpp"

using namespace medsynth;

TEST(EventSchema, TheWriterRefusesATypeTheSchemaDoesNotList) {
  test::TempDir dir("schema");
  EventWriter writer(EventWriterOptions{.path = dir / "events.jsonl", .rank = 0, .echo_stdout = false});
  EXPECT_THROW(writer.emit("gpu_temperature", {{"celsius", 71}}), UsageError);
  for (std::string_view type : event_schema::k_types)
    if (type == event_schema::stage || type == event_schema::memorization) EXPECT_NO_THROW(writer.emit(type, {}));
  std::ifstream in(dir / "events.jsonl");
  std::string all((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(all.find("gpu_temperature"), std::string::npos);
}

TEST(EventSchema, DocsEventsMdDocumentsEveryTypeAndNoOther) {
  std::ifstream in(std::string(MEDSYNTH_SOURCE_DIR) + "/docs/events.md");
  ASSERT_TRUE(in) << "docs/events.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string docs = text.str();
  std::set<std::string> documented;
  const std::regex heading("\\n#### `([a-z_]+)`");
  for (auto it = std::sregex_iterator(docs.begin(), docs.end(), heading); it != std::sregex_iterator(); ++it) documented.insert((*it)[1]);
  std::set<std::string> schema;
  for (std::string_view type : event_schema::k_types) schema.insert(std::string(type));
  EXPECT_EQ(documented, schema) << "docs/events.md's #### headings and event_schema::k_types must list the same types";
  EXPECT_NE(docs.find("\"v\":" + std::to_string(event_schema::k_version)), std::string::npos) << "the examples carry the schema version";
}
