// What `generate RUN` tells the world, from rank 0:
// - on stdout with --json, the event stream of one generation, like a
//   training run's (docs/events.md): run_started (task as the run's,
//   extra.verb "generate", total_steps = images in all), then per image of
//   rank 0 an artifact ("volume", with seed, generated_by_rank and seconds)
//   and a progress event (images done in all, estimated as rank 0's count x
//   world size: the ranks share the images round robin), then run_finished
//   (extra: the peak memory), or run_failed with the error. The console's
//   launcher (app/launch/local_launcher) follows it like any run.
// - in RUN/events.jsonl, with or without --json, an artifact event per image
//   made (every rank's, the others' once all are written), so the run's own
//   view lists the images a later generate made (issue 38), when they lie
//   inside RUN: images written elsewhere (--output-dir) are not the run's,
//   and its stream is left alone (issue 53 item 5). Only artifacts:
//   a second run_started/run_finished would overwrite the run's own (its
//   stages, its final metrics).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "diffusion/generate_stage.hpp"
#include "events/event_writer.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::cli {

class GenerateEvents {
 public:
  // `json` false: only the run's artifacts; a rank other than 0: nothing.
  // kept_already: rank 0's images that exist already (generate keeps them).
  // output_dir: where the images go; outside RUN, RUN/events.jsonl is not written.
  GenerateEvents(bool json, const RunDirectory& run, const std::string& output_dir, const JobSpec& job,
                 const std::string& device, int rank, int world_size, std::int64_t images_in_all,
                 std::int64_t kept_already);

  // The images that exist before this generate (kept, and announced when
  // they were made): never announced again.
  void known_already(const std::vector<GeneratedImage>& planned);
  void image_written(const GeneratedImage& image);
  // After every rank's images (generate_images ends with a barrier): the
  // planned images of every rank that exist and were not announced yet go to
  // the run's stream now; extra: the peak memory.
  void finished(const std::vector<GeneratedImage>& planned, const EventFields& extra = {});
  void failed(const std::exception& error);

 private:
  std::unique_ptr<EventWriter> events_;  // stdout (--json)
  std::unique_ptr<EventWriter> run_;     // RUN/events.jsonl: artifacts only
  std::set<std::string> announced_;
  int world_size_ = 1;
  std::int64_t images_in_all_ = 0;
  std::int64_t done_by_rank0_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace medsynth::cli
