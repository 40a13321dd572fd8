// Typing one YAML node into one job field, with the reasons a researcher needs
// ("expected a number (got \"fast\")", "expected 3 values (got 2)"). Called by the
// job reader for every field it finds. Internal to medsynth_config.
//
// Each read_value() leaves `out` unchanged and appends a FieldError for `path`
// when the node does not fit, so one bad field never hides the others.
// Numbers and booleans must be plain scalars: a quoted "3e-4" stays a string.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/job_enums.hpp"
#include "config/job_spec.hpp"
#include "core/error.hpp"

namespace medsynth {

// How a node is shown after "got": null, 1.5, "fast", a sequence of 2 values, a mapping.
std::string describe_node(const YAML::Node& node);

void read_value(const YAML::Node& node, const std::string& path, int& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, std::int64_t& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, double& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, bool& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, std::string& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, DataSource& out, std::vector<FieldError>& errors);
void read_value(const YAML::Node& node, const std::string& path, Modality& out, std::vector<FieldError>& errors);
void read_spelled_enum(const YAML::Node& node, const std::string& path, std::size_t& index,
                       const std::vector<std::string>& names, std::vector<FieldError>& errors);
template <SpelledEnum E>
void read_value(const YAML::Node& node, const std::string& path, E& out, std::vector<FieldError>& errors) {
  std::size_t index = static_cast<std::size_t>(out);
  read_spelled_enum(node, path, index, enum_names<E>(), errors);
  out = static_cast<E>(index);
}

// "integers", "numbers", "booleans": the element noun for sequence messages.
template <class T>
constexpr const char* element_noun() {
  if constexpr (std::is_same_v<T, bool>) return "booleans";
  else if constexpr (std::is_integral_v<T>) return "integers";
  else return "numbers";
}

template <class T>
void read_sequence(const YAML::Node& node, const std::string& path, std::optional<std::size_t> expected_size,
                   std::vector<T>& out, std::vector<FieldError>& errors) {
  if (!node.IsSequence()) {
    const std::string count = expected_size ? std::to_string(*expected_size) + " " : std::string();
    errors.push_back({path, "expected a sequence of " + count + element_noun<T>() + " (got " + describe_node(node) + ")"});
    return;
  }
  if (expected_size && node.size() != *expected_size) {
    errors.push_back({path, "expected " + std::to_string(*expected_size) + " values (got " + std::to_string(node.size()) + ")"});
    return;
  }
  std::vector<T> values;
  const std::size_t before = errors.size();
  for (std::size_t i = 0; i < node.size(); ++i) {
    T value{};
    read_value(node[i], path + "[" + std::to_string(i) + "]", value, errors);
    values.push_back(value);
  }
  if (errors.size() == before) out = std::move(values);
}

template <class T>
void read_value(const YAML::Node& node, const std::string& path, std::vector<T>& out, std::vector<FieldError>& errors) {
  read_sequence<T>(node, path, std::nullopt, out, errors);
}

template <class T, std::size_t N>
void read_value(const YAML::Node& node, const std::string& path, std::array<T, N>& out, std::vector<FieldError>& errors) {
  std::vector<T> values;
  const std::size_t before = errors.size();
  read_sequence<T>(node, path, N, values, errors);
  if (errors.size() == before)
    for (std::size_t i = 0; i < N; ++i) out[i] = values[i];
}

// null (or ~) means "not set".
template <class T, std::size_t N>
void read_value(const YAML::Node& node, const std::string& path, std::optional<std::array<T, N>>& out,
                std::vector<FieldError>& errors) {
  if (node.IsNull()) {
    out.reset();
    return;
  }
  std::array<T, N> values{};
  const std::size_t before = errors.size();
  read_value(node, path, values, errors);
  if (errors.size() == before) out = values;
}

}  // namespace medsynth
