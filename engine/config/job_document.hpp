// Parsing job text into one document tree before it is typed: YAML through
// yaml-cpp, JSON through nlohmann_json (exact positions in its errors, duplicate
// keys caught) and then converted, so that the reader and the overrides handle
// one kind of tree. Called by job_loader.cpp. Internal to medsynth_config.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"

namespace medsynth {

// True for names ending in .json (any case): those are parsed as JSON.
bool is_json_name(const std::string& name);

// Throws ConfigError naming `source_name` with the line and column of a syntax
// error. Duplicate JSON keys are appended to `errors` (YAML duplicates are kept
// in the tree and reported by the reader).
YAML::Node parse_job_document(const std::string& text, const std::string& source_name, bool as_json,
                              std::vector<FieldError>& errors);

}  // namespace medsynth
