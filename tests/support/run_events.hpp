// Reading a finished run in tests: its events.jsonl, one metric's values in
// order, means of a stretch of them, and the one run a --runs-dir holds.
// Header-only (nlohmann_json): the tests that use it link it already.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace medsynth::test {

inline std::vector<nlohmann::json> events_of(const std::filesystem::path& file) {
  std::vector<nlohmann::json> events;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  return events;
}

inline std::vector<double> metric(const std::vector<nlohmann::json>& events, const std::string& name) {
  std::vector<double> values;
  for (const auto& e : events)
    if (e.value("type", "") == "metric" && e.value("name", "") == name) values.push_back(e.at("value").get<double>());
  return values;
}

inline double mean(const std::vector<double>& v, std::size_t first, std::size_t count) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(first),
                         v.begin() + static_cast<std::ptrdiff_t>(first + count), 0.0) /
         static_cast<double>(count);
}

inline std::filesystem::path only_run_in(const std::filesystem::path& runs_dir) {
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(runs_dir)) runs.push_back(e.path());
  EXPECT_EQ(runs.size(), 1u);
  return runs.empty() ? std::filesystem::path() : runs.front();
}

}  // namespace medsynth::test
