// Helpers shared by the medsynth_config tests: run a load and collect the
// FieldErrors of the ConfigError it throws, and look one up by path.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/job_loader.hpp"

namespace medsynth::test {

// The errors of the ConfigError thrown by `load`; fails the test if none is thrown.
inline std::vector<FieldError> config_errors(const std::function<void()>& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.errors();
  }
  ADD_FAILURE() << "expected a ConfigError";
  return {};
}

inline std::vector<FieldError> errors_of_text(const std::string& yaml, const std::string& source = "job.yaml") {
  return config_errors([&] { load_job_text(yaml, source); });
}

// The reason recorded for `path`, or "<none>" (so a failed EXPECT prints the list).
inline std::string reason_for(const std::vector<FieldError>& errors, const std::string& path) {
  for (const auto& e : errors)
    if (e.path == path) return e.reason;
  return "<none> in:\n" + format_errors(errors);
}

inline bool has_error(const std::vector<FieldError>& errors, const std::string& path, const std::string& part = "") {
  for (const auto& e : errors)
    if (e.path == path && e.reason.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace medsynth::test
