// JSON from files the user did not write (NV-Generate configs, a generated
// volume's provenance, environment files): parsed with a depth limit. Why:
// nlohmann's parser is iterative, but copying or converting a value recurses,
// and a value nested 10^6 deep (a 2 MB file) overflowed the stack of
// import-maisi, generate --label and regenerate (issue 37). Real configs
// nest a handful of levels.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"

namespace medsynth {

inline constexpr int k_max_json_depth = 64;

// DataError naming `source` when the input is not JSON or nests deeper than `max_depth`.
template <class Input>
nlohmann::json parse_bounded_json(Input&& input, const std::string& source, int max_depth = k_max_json_depth) {
  const nlohmann::json::parser_callback_t guard = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_depth)
      throw DataError(source, "nests values more than " + std::to_string(max_depth) + " levels deep; refusing it (a config or provenance needs a few)");
    return true;
  };
  try {
    return nlohmann::json::parse(std::forward<Input>(input), guard);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(source, std::string("is not valid JSON: ") + e.what());
  }
}

}  // namespace medsynth
