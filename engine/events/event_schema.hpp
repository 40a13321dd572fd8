// The event stream's contract (docs/events.md), in one place for its writer
// (EventWriter, engine) and its reader (app::EventStreamReader, console):
// the schema version and every event type. Header-only, no LibTorch, no Qt,
// so both sides include it. EventWriter refuses a type that is not listed
// here; tests/app's replay test feeds the reader one event of every listed
// type and real streams of every workflow, and tests/engine/events checks
// that docs/events.md documents each type: a type added on one side only fails.
#pragma once

#include <array>
#include <string_view>

namespace medsynth::event_schema {

inline constexpr int k_version = 1;

inline constexpr std::string_view run_started = "run_started";
inline constexpr std::string_view progress = "progress";
inline constexpr std::string_view metric = "metric";
inline constexpr std::string_view log = "log";
inline constexpr std::string_view checkpoint = "checkpoint";
inline constexpr std::string_view artifact = "artifact";
inline constexpr std::string_view stage = "stage";              // ldm pipeline: a stage starts, ends or is skipped
inline constexpr std::string_view restart = "restart";          // the launcher
inline constexpr std::string_view run_finished = "run_finished";
inline constexpr std::string_view run_failed = "run_failed";
inline constexpr std::string_view memorization = "memorization";  // evaluate: a generated volume copies a training case

inline constexpr std::array<std::string_view, 11> k_types{run_started, progress, metric,       log,        checkpoint, artifact,
                                                          stage,       restart,  run_finished, run_failed, memorization};

constexpr bool is_known_type(std::string_view type) {
  for (std::string_view t : k_types)
    if (t == type) return true;
  return false;
}

}  // namespace medsynth::event_schema
