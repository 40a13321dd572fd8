// Writes the run's event stream (events.jsonl, and stdout with --json): the one
// contract between the engine and the console, schema in docs/events.md.
// Called by the trainer and the CLI on rank 0, and by the launcher for restarts
// and worker failures. Every method is thread-safe and writes one whole JSON
// line with a single write(2) on an O_APPEND descriptor, so neither a reader nor
// another process appending to the same file ever sees half a line from us.
// Write failures throw RuntimeError (a run whose event stream is lost must not
// go on silently).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "contract/event_fields.hpp"
#include "contract/event_schema.hpp"
#include "events/log_level.hpp"

namespace medsynth {

class PipelineEta;
class TensorBoardWriter;

// The schema version written as "v"; bumped only on an incompatible change.
inline constexpr int k_event_schema_version = event_schema::k_version;

class EventWriter;

// A stage of a pipeline (the ldm pipeline's autoencoder and diffusion runs)
// also reports into the pipeline's stream, the one the console follows:
// metrics as "<prefix>name", progress shifted by step_offset within the
// pipeline's total_steps, logs tagged with the prefix, checkpoints and
// artifacts as they are. Never run_started, run_finished, run_failed or
// restart: those would change the pipeline run's status and directory.
struct EventForwarding {
  EventWriter* to = nullptr;      // null: nothing forwarded
  std::string prefix;             // "autoencoder/"
  std::int64_t step_offset = 0;   // steps of the stages before this one
  std::int64_t total_steps = 0;   // all stages' steps
  // The pipeline's ETA over all its stages (null: the stage's own is forwarded).
  std::shared_ptr<PipelineEta> eta;
};

struct EventWriterOptions {
  // The run's events.jsonl; parent folders are created; appended to. Empty
  // with echo_stdout: the stream goes to stdout only (`generate --json`,
  // whose run_started/run_finished are not the run's own).
  std::filesystem::path path{};
  int rank = 0;                  // written as "rank" on every event; -1 for the launcher
  bool echo_stdout = false;      // --json: every line also goes to stdout, which then belongs to us
  EventForwarding forward{};
};

enum class CheckpointKind { last, best, rollback };
std::string_view to_string(CheckpointKind kind);
// "runtime" | "usage" | "data" | "interrupted": run_failed's "error".
std::string_view to_string(ErrorKind kind);

struct RunStartedEvent {
  std::string run_dir{};
  std::string job_name{};
  std::string task{};       // autoencoder | ldm | vqgan | ...
  std::string config_hash{};  // of the resolved job, to tell runs of the same job apart
  int world_size = 1;
  std::int64_t effective_batch = 1;  // batch_size x accumulation x world_size
  std::int64_t total_steps = 0;
  std::string device{};     // e.g. "cpu", "cuda:0"
  EventFields extra{};      // written as the object "extra"
};

class EventWriter {
 public:
  // Opens (creates) options.path for append. Throws UsageError for an empty
  // path, RuntimeError if it cannot be opened.
  explicit EventWriter(EventWriterOptions options);
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  // When attached, every metric() is also written to it as a scalar.
  void attach_tensorboard(std::shared_ptr<TensorBoardWriter> tensorboard);

  void run_started(const RunStartedEvent& event);
  // eta_s empty while unknown (written as null); a non-finite rate is null too.
  void progress(std::int64_t step, std::int64_t total_steps, std::int64_t epoch, std::int64_t epochs,
                double samples_per_s, std::optional<double> eta_s);
  // name: TensorBoard-style tag (train/loss, val/psnr, lr, throughput/vox_per_s).
  // A NaN/Inf value is written as null with "nonfinite": "nan" | "inf" | "-inf".
  void metric(std::int64_t step, std::string_view name, double value);
  void log(LogLevel level, std::string_view message);
  // metric_name/metric_value: what made a "best" checkpoint best (omitted when empty).
  void checkpoint(std::string_view path, std::int64_t step, CheckpointKind kind, std::string_view metric_name = {},
                  std::optional<double> metric_value = std::nullopt);
  // kind: what the file is, e.g. "volume" for a generated image.
  void artifact(std::string_view path, std::string_view kind, std::int64_t step, const EventFields& extra = {});
  void restart(int attempt, std::string_view reason);
  // status: "completed" (all steps done) or "stopped" (ended before the last
  // step, by a signal or a stop rule, after saving a checkpoint: resumable).
  // Non-finite metrics are written as null.
  // `extra`: what else the run reports at its end (its peak memory), as the object "extra".
  void run_finished(std::string_view status, const std::map<std::string, double>& final_metrics, double duration_s,
                    const EventFields& extra = {});
  void run_failed(ErrorKind kind, std::string_view message, int exit_code);

  // Any other event type of event_schema.hpp, fields at the top level after
  // v/type/time/rank (which are reserved: UsageError if `fields` repeats one).
  // UsageError for a type the schema does not list: the console would not know it.
  void emit(std::string_view type, const EventFields& fields);

  const std::filesystem::path& path() const noexcept { return options_.path; }
  int rank() const noexcept { return options_.rank; }

 private:
  void write_line(const std::string& line);

  EventWriterOptions options_;
  int fd_ = -1;
  std::mutex mutex_;
  // A write that failed part-way (ENOSPC, a file-size limit) left a line
  // without its newline: the next write starts with one, so the torn
  // fragment stays a line of its own instead of gluing onto a whole event.
  bool torn_ = false;
  std::shared_ptr<TensorBoardWriter> tensorboard_;
};

}  // namespace medsynth
