// Reads a run's events.jsonl back for assertions.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace medsynth::test {

inline std::vector<nlohmann::json> read_events(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// (step, value) of every metric event with this name, in file order.
inline std::vector<std::pair<long, double>> metric_series(const std::vector<nlohmann::json>& events, const std::string& name) {
  std::vector<std::pair<long, double>> out;
  for (const auto& e : events)
    if (e.value("type", "") == "metric" && e.value("name", "") == name && e["value"].is_number())
      out.emplace_back(e["step"].get<long>(), e["value"].get<double>());
  return out;
}

}  // namespace medsynth::test
