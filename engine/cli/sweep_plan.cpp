#include "cli/sweep_plan.hpp"

#include <set>

#include "core/error.hpp"

namespace medsynth::cli {

std::vector<std::string> split_alternatives(const std::string& value) {
  std::vector<std::string> parts(1);
  int depth = 0;
  char quote = 0;
  for (const char c : value) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

SweepPlan plan_sweep(const std::vector<std::string>& overrides, std::size_t max_runs) {
  struct Axis {
    std::size_t position;  // in `overrides`
    std::string key;
    std::vector<std::string> alternatives;
  };
  std::vector<Axis> axes;
  std::set<std::string> keys;
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const std::string& o = overrides[i];
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("sweep: '" + o + "' is not key=value (a sweep's overrides are key=a,b,...)");
    const std::string key = o.substr(0, eq);
    if (!keys.insert(key).second) throw UsageError("sweep: " + key + " is given twice; list its values once, key=a,b");
    auto alternatives = split_alternatives(o.substr(eq + 1));
    if (alternatives.size() < 2) continue;
    for (const auto& a : alternatives)
      if (a.empty()) throw UsageError("sweep: " + o + ": an empty value between commas");
    axes.push_back({i, key, std::move(alternatives)});
  }
  std::size_t count = 1;
  for (const auto& a : axes) {
    count *= a.alternatives.size();
    if (count > max_runs)
      throw UsageError("sweep: the axes make more than " + std::to_string(max_runs) +
                       " runs; sweep fewer values at a time");
  }
  SweepPlan plan;
  for (const auto& a : axes) plan.axes.push_back(a.key);
  for (std::size_t run = 0; run < count; ++run) {
    std::vector<std::string> chosen(axes.size());
    std::size_t rest = run;
    for (std::size_t k = axes.size(); k-- > 0;) {  // the last axis varies fastest
      chosen[k] = axes[k].alternatives[rest % axes[k].alternatives.size()];
      rest /= axes[k].alternatives.size();
    }
    std::vector<std::string> args = overrides;
    for (std::size_t k = 0; k < axes.size(); ++k) args[axes[k].position] = axes[k].key + "=" + chosen[k];
    plan.runs.push_back(std::move(args));
    plan.values.push_back(std::move(chosen));
  }
  return plan;
}

}  // namespace medsynth::cli
