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
inline constexpr std::string_view stage = "stage";      // ldm pipeline: a stage starts, ends or is skipped
inline constexpr std::string_view restart = "restart";  // the launcher
inline constexpr std::string_view run_finished = "run_finished";
inline constexpr std::string_view run_failed = "run_failed";
inline constexpr std::string_view memorization = "memorization";  // evaluate: a generated volume copies a training case

inline constexpr std::array<std::string_view, 11> k_types{
    run_started, progress, metric, log, checkpoint, artifact, stage, restart, run_finished, run_failed, memorization};

constexpr bool is_known_type(std::string_view type) {
  for (std::string_view t : k_types)
    if (t == type) return true;
  return false;
}

// The field keys of the events (docs/events.md), spelled once for the writer
// (events/event_writer.cpp and the stages that emit their own fields) and the
// reader (app/runs/event_stream_reader.cpp). C strings, so that they key
// nlohmann::json, EventFields and QLatin1String alike.
namespace key {
inline constexpr const char* v = "v";        // the schema version (k_version)
inline constexpr const char* type = "type";  // one of k_types
inline constexpr const char* time = "time";  // ISO 8601 UTC, milliseconds
inline constexpr const char* rank = "rank";  // the writing rank
inline constexpr const char* run_dir = "run_dir";
inline constexpr const char* job_name = "job_name";
inline constexpr const char* task = "task";
inline constexpr const char* config_hash = "config_hash";
inline constexpr const char* world_size = "world_size";
inline constexpr const char* effective_batch = "effective_batch";
inline constexpr const char* total_steps = "total_steps";
inline constexpr const char* device = "device";
inline constexpr const char* extra = "extra";    // free-form fields (EventFields)
inline constexpr const char* stages = "stages";  // run_started extra: a pipeline's stages
inline constexpr const char* verb = "verb";      // run_started extra: the verb that started the run
inline constexpr const char* step = "step";
inline constexpr const char* epoch = "epoch";
inline constexpr const char* epochs = "epochs";
inline constexpr const char* samples_per_s = "samples_per_s";
inline constexpr const char* eta_s = "eta_s";
inline constexpr const char* name = "name";
inline constexpr const char* value = "value";
inline constexpr const char* nonfinite = "nonfinite";  // "inf", "-inf" or absent (NaN) where value is null
inline constexpr const char* level = "level";
inline constexpr const char* message = "message";
inline constexpr const char* path = "path";
inline constexpr const char* kind = "kind";
inline constexpr const char* metric = "metric";
inline constexpr const char* attempt = "attempt";
inline constexpr const char* reason = "reason";
inline constexpr const char* status = "status";
inline constexpr const char* metrics = "metrics";
inline constexpr const char* duration_s = "duration_s";
inline constexpr const char* error = "error";
inline constexpr const char* exit_code = "exit_code";
inline constexpr const char* stage = "stage";
inline constexpr const char* dir = "dir";
inline constexpr const char* steps = "steps";
inline constexpr const char* first_step = "first_step";
inline constexpr const char* images = "images";
inline constexpr const char* generated = "generated";
inline constexpr const char* nearest = "nearest";
}  // namespace key

}  // namespace medsynth::event_schema
