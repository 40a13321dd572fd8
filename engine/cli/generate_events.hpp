// `generate --json`: the event stream of one generation, written by rank 0
// like a training run's (docs/events.md): run_started (task as the run's,
// extra.verb "generate", total_steps = images in all), then per image of rank
// 0 an artifact ("volume", with seed, generated_by_rank and seconds) and a progress event
// (images done in all, estimated as rank 0's count x world size: the ranks
// share the images round robin), then run_finished, or run_failed with the
// error. Appended to RUN/events.jsonl, so the run's own view lists the images
// a later generate made, and echoed on stdout for the console's launcher
// (app/launch/local_launcher), which follows it like any run. Without --json
// nothing is written.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "config/job_spec.hpp"
#include "diffusion/generate_stage.hpp"
#include "events/event_writer.hpp"
#include "run/run_directory.hpp"

namespace medsynth::cli {

class GenerateEvents {
 public:
  // `enabled` false, or a rank other than 0: every call does nothing.
  // kept_already: rank 0's images that exist already (generate keeps them).
  GenerateEvents(bool enabled, const RunDirectory& run, const JobSpec& job, const std::string& device, int rank,
                 int world_size, std::int64_t images_in_all, std::int64_t kept_already);

  void image_written(const GeneratedImage& image);
  void finished(const EventFields& extra = {});  // extra: the peak memory
  void failed(const std::exception& error);

 private:
  std::unique_ptr<EventWriter> events_;
  int world_size_ = 1;
  std::int64_t images_in_all_ = 0;
  std::int64_t done_by_rank0_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace medsynth::cli
