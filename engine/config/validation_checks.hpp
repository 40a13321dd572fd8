// Small range checks that append "must be >= 1 (got 0)"-style FieldErrors, so
// that job_validation.cpp reads as a list of rules. Internal to medsynth_config.
#pragma once

#include <array>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "config/did_you_mean.hpp"
#include "config/number_text.hpp"
#include "core/error.hpp"

namespace medsynth {

inline std::string value_text(int v) { return std::to_string(v); }
inline std::string value_text(long v) { return std::to_string(v); }
inline std::string value_text(long long v) { return std::to_string(v); }
inline std::string value_text(double v) { return short_number(v); }

template <class Range>
std::string list_text(const Range& values) {
  std::string out = "[";
  bool first = true;
  for (const auto& v : values) {
    out += (first ? "" : ", ") + value_text(v);
    first = false;
  }
  return out + "]";
}

class Checks {
 public:
  explicit Checks(std::vector<FieldError>& errors) : errors_(errors) {}

  void fail(const std::string& path, const std::string& reason) { errors_.push_back({path, reason}); }

  template <class T>
  void at_least(const std::string& path, T value, T min) {
    if (!(value >= min) || !finite(value)) fail(path, "must be >= " + value_text(min) + " (got " + value_text(value) + ")");
  }
  template <class T>
  void above(const std::string& path, T value, T min) {
    if (!(value > min) || !finite(value)) fail(path, "must be > " + value_text(min) + " (got " + value_text(value) + ")");
  }
  // Closed [lo, hi].
  void within(const std::string& path, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))
      fail(path, "must be in [" + value_text(lo) + ", " + value_text(hi) + "] (got " + value_text(value) + ")");
  }
  // Open (lo, hi).
  void strictly_within(const std::string& path, double value, double lo, double hi) {
    if (!(value > lo && value < hi))
      fail(path, "must be in (" + value_text(lo) + ", " + value_text(hi) + ") (got " + value_text(value) + ")");
  }
  void one_of(const std::string& path, const std::string& value, const std::vector<std::string>& choices) {
    for (const auto& c : choices)
      if (value == c) return;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    fail(path, "must be one of " + list + " (got \"" + value + "\")" + did_you_mean(value, choices));
  }

 private:
  static bool finite(double v) { return std::isfinite(v); }
  template <class T>
  static bool finite(T) {
    return true;
  }
  std::vector<FieldError>& errors_;
};

}  // namespace medsynth
