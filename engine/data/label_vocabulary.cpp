#include "data/label_vocabulary.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "core/error.hpp"
#include "data/label_tables.hpp"

namespace medsynth {

namespace {

using Json = nlohmann::json;

// A built-in table: malformed would be our bug, found by the first test.
Json builtin(const char* text) { return Json::parse(text); }

// Only the canonical spelling: std::stoi read "+1", "01" and " 1" as 1, so
// three entries for one label collapsed into whichever came last (issue 50
// item 10, as the fuzzer's F1 found for configs).
int source_id(const std::string& key, const std::string& file) {
  const bool canonical =
      !key.empty() && key.size() <= 9 && key[0] != '0' && key.find_first_not_of("0123456789") == std::string::npos;
  if (!canonical)
    throw DataError(file, "entry \"" + key +
                              "\": a source label must be an integer > 0 written plainly (no sign, "
                              "leading zero or space; at most 9 digits)");
  return std::stoi(key);
}

// A MAISI id (0: none) or class name, as a user's map gives it.
int maisi_id(const Json& value, const std::string& key, const std::string& file) {
  const auto& classes = maisi_ct_classes();
  if (value.is_number_integer()) {
    // Compared as JSON reads it: get<int>() made 2^32+1 class 1 (liver) and 2^64-1 class -1.
    const bool in_range = value.is_number_unsigned()
                              ? value.get<std::uint64_t>() <= 1000
                              : value.get<std::int64_t>() >= 0 && value.get<std::int64_t>() <= 1000;
    const int id = in_range ? value.get<int>() : -1;
    if (id == 0 || classes.count(id)) return id;
    throw DataError(file, "entry \"" + key + "\": " + value.dump() + " is not a MAISI CT class id");
  }
  if (value.is_string()) {
    for (const auto& [id, name] : classes)
      if (name == value.get<std::string>()) return id;
    throw DataError(file, "entry \"" + key + "\": '" + value.get<std::string>() +
                              "' is not a MAISI CT class (resources/labels/maisi-ct.json lists them)");
  }
  throw DataError(file, "entry \"" + key + "\": expected a MAISI CT id or class name, got " + value.dump());
}

LabelMapping builtin_mapping(const char* text) {
  const Json table = builtin(text);
  LabelMapping m;
  m.source = table.at("source").get<std::string>();
  for (const auto& [key, entry] : table.at("labels").items())
    m.labels[std::stoi(key)] = {entry.at(0).get<std::string>(), entry.at(1).get<int>()};
  return m;
}

LabelMapping user_mapping(const std::string& file) {
  if (!std::filesystem::is_regular_file(file))
    throw UsageError("--from: '" + file + "' is neither totalsegmentator, vista3d nor a JSON file");
  // A stranger's file, perhaps: its size and nesting are bounded before anything recurses.
  const Json table = read_bounded_json_file(file, k_document_json_cap, "cannot open the label map");
  if (!table.is_object() || table.empty())
    throw DataError(file, "expected an object {\"<source id>\": <MAISI id or class name>, ...}");
  LabelMapping m;
  m.source = file;
  for (const auto& [key, value] : table.items()) m.labels[source_id(key, file)] = {"", maisi_id(value, key, file)};
  return m;
}

}  // namespace

const std::map<int, std::string>& maisi_ct_classes() {
  static const std::map<int, std::string> classes = [] {
    std::map<int, std::string> out;
    const Json table = builtin(label_tables::maisi_ct);  // named: a range-for over a temporary's member dangles
    for (const auto& [key, name] : table.at("labels").items()) out[std::stoi(key)] = name.get<std::string>();
    return out;
  }();
  return classes;
}

const std::map<std::string, std::vector<int>>& maisi_ct_organ_groups() {
  static const std::map<std::string, std::vector<int>> groups = [] {
    std::map<std::string, std::vector<int>> out;
    const Json table = builtin(label_tables::maisi_ct);  // named: a range-for over a temporary's member dangles
    for (const auto& [name, ids] : table.at("organ_groups").items()) out[name] = ids.get<std::vector<int>>();
    return out;
  }();
  return groups;
}

LabelMapping label_mapping(const std::string& from) {
  if (from == "totalsegmentator") return builtin_mapping(label_tables::totalsegmentator);
  if (from == "vista3d") return builtin_mapping(label_tables::vista3d);
  return user_mapping(from);
}

}  // namespace medsynth
