// Severity of a log line, shared by RunLogger (which prints it) and
// EventWriter (whose `log` events carry it as "level").
#pragma once

#include <optional>
#include <string_view>

namespace medsynth {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

// "debug" | "info" | "warn" | "error": the value of a log event's "level".
constexpr std::string_view to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    case LogLevel::error: return "error";
  }
  return "info";
}

// "DEBUG" | "INFO" | "WARN" | "ERROR": the level as written in log lines.
constexpr std::string_view to_log_label(LogLevel level) {
  switch (level) {
    case LogLevel::debug: return "DEBUG";
    case LogLevel::info: return "INFO";
    case LogLevel::warn: return "WARN";
    case LogLevel::error: return "ERROR";
  }
  return "INFO";
}

// Parses either spelling (e.g. a --log-level option); empty if unknown.
constexpr std::optional<LogLevel> parse_log_level(std::string_view text) {
  for (auto level : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error})
    if (text == to_string(level) || text == to_log_label(level)) return level;
  if (text == "warning" || text == "WARNING") return LogLevel::warn;
  return std::nullopt;
}

}  // namespace medsynth
