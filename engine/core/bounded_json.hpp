// JSON from files the user did not write (NV-Generate configs, a generated
// volume's provenance, environment files, datalists, label maps, statistics,
// embeddings' metadata): parsed with a depth limit, and read from a file only
// up to a byte cap. Why the depth: nlohmann's parser is iterative, but
// copying or converting a value recurses, and a value nested 10^6 deep (a
// 2 MB file) overflowed the stack of import-maisi, generate --label and
// regenerate (issue 37). Real configs nest a handful of levels. Why the
// bytes: a parsed document takes about 25 times its size (a 150 MB datalist
// took 3.8 GB, a 120 MB statistics file 3.2 GB; issue 50 item 8).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

inline constexpr int k_max_json_depth = 64;

// DataError naming `source` when the input is not JSON, nests deeper than
// `max_depth`, or repeats a key within one object. Why the keys: nlohmann
// keeps the last of `{"1": 5, "1": 6}` and other readers the first, so a
// repeated key is a file two tools read differently (issue 50: a label map's
// repeated source label silently took the later class).
template <class Input>
nlohmann::json parse_bounded_json(Input&& input, const std::string& source, int max_depth = k_max_json_depth) {
  std::vector<std::set<std::string>> keys;  // of each object being read, innermost last
  const nlohmann::json::parser_callback_t guard = [&](int depth, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    if (depth > max_depth)
      throw DataError(source, "nests values more than " + std::to_string(max_depth) + " levels deep; refusing it (a config or provenance needs a few)");
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end && !keys.empty()) keys.pop_back();
    if (event == Event::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
      throw DataError(source,
                      "repeats the key \"" + parsed.get<std::string>() +
                          "\" in one object; which of its values is meant is ambiguous, so the file is refused");
    return true;
  };
  try {
    return nlohmann::json::parse(std::forward<Input>(input), guard);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(source, std::string("is not valid JSON: ") + e.what());
  }
}

// How large a stranger's JSON file may be, and what kind of file the message
// calls it. Far above any real file, far below what would exhaust memory.
struct JsonByteCap {
  std::uint64_t bytes;
  const char* kind;
};
// Lists with one entry per case: a MONAI datalist (10 000 cases with image
// and label paths are about 3 MB), an evaluation.json's memorization cases.
// At the cap, parsing takes about 1.6 GB.
inline constexpr JsonByteCap k_case_list_json_cap{64ull << 20, "a list of cases"};
// One document of fixed shape: an NV-Generate config or environment file, a
// label map, organ statistics, a latent's metadata, a quality report. The
// largest real ones (NV-Generate's configs, label_dict.json, TotalSegmentator's
// map) are under 10 KB; at the cap, parsing takes about 100 MB.
inline constexpr JsonByteCap k_document_json_cap{4ull << 20, "a config, label map, statistics or metadata file"};

// Reads the JSON file `path` as parse_bounded_json does, refusing it before
// parsing when it holds more than cap.bytes: DataError(path, "is 5242880
// bytes, over the cap of 4194304 bytes for ..."). The cap also holds for
// a file that grows while it is read, or whose size cannot be known (a pipe):
// no more than cap.bytes + 64 KiB are read. DataError(path, cannot_open) when
// it cannot be opened.
inline nlohmann::json read_bounded_json_file(const std::string& path, const JsonByteCap& cap,
                                             const std::string& cannot_open) {
  const auto too_large = [&](const std::string& size) {
    return DataError(path, "is " + size + " bytes, over the cap of " + std::to_string(cap.bytes) + " bytes for " +
                               cap.kind + "; refused before parsing (a parsed JSON takes about 25 times its size)");
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, cannot_open);
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > cap.bytes) throw too_large(std::to_string(size));
  std::string text;
  char buffer[64 * 1024];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > cap.bytes) throw too_large("more than " + std::to_string(cap.bytes));
  }
  return parse_bounded_json(text, path);
}

}  // namespace medsynth
