#include "cli/generate_events.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "config/job_loader.hpp"
#include "core/error.hpp"

namespace medsynth::cli {

namespace {

// Whether `path` is `root` or lies below it (both made absolute and normal).
bool lies_inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path));
  const auto r = std::filesystem::weakly_canonical(std::filesystem::absolute(root));
  const auto [end, _] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return end == r.end();
}

}  // namespace

GenerateEvents::GenerateEvents(bool json, const RunDirectory& run, const std::string& output_dir, const JobSpec& job,
                               const std::string& device, int rank, int world_size, std::int64_t images_in_all,
                               std::int64_t kept_already)
    : world_size_(std::max(1, world_size)),
      images_in_all_(images_in_all),
      done_by_rank0_(kept_already),
      start_(std::chrono::steady_clock::now()) {
  if (rank != 0) return;
  if (lies_inside(output_dir, run.root))
    run_ = std::make_unique<EventWriter>(EventWriterOptions{.path = run.events_file(), .rank = 0});
  if (!json) return;
  events_ = std::make_unique<EventWriter>(EventWriterOptions{.rank = 0, .echo_stdout = true});
  events_->run_started({.run_dir = run.root,
                        .job_name = job.name,
                        .task = job.task,
                        .config_hash = job_config_hash(job),
                        .world_size = world_size_,
                        .effective_batch = 1,
                        .total_steps = images_in_all_,
                        .device = device,
                        .extra = {{"verb", "generate"}, {"kept_already", kept_already}}});
}

void GenerateEvents::known_already(const std::vector<GeneratedImage>& planned) {
  for (const auto& image : planned)
    if (std::filesystem::exists(image.path)) announced_.insert(image.path);
}

void GenerateEvents::image_written(const GeneratedImage& image) {
  if (!run_ && !events_) return;  // not rank 0
  ++done_by_rank0_;
  const std::int64_t done = std::min(images_in_all_, done_by_rank0_ * world_size_);
  const EventFields fields{{"seed", image.seed}, {"generated_by_rank", image.rank}, {"seconds", image.seconds}};
  if (announced_.insert(image.path).second && run_) run_->artifact(image.path, "volume", done, fields);
  if (!events_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  const std::optional<double> eta = rate > 0 ? std::optional<double>((images_in_all_ - done) / rate) : std::nullopt;
  events_->artifact(image.path, "volume", done, fields);
  events_->progress(done, images_in_all_, 0, 1, rate, eta);
}

void GenerateEvents::finished(const std::vector<GeneratedImage>& planned, const EventFields& extra) {
  for (const auto& image : planned)
    if (run_ && std::filesystem::exists(image.path) && announced_.insert(image.path).second)
      run_->artifact(image.path, "volume", images_in_all_, {{"seed", image.seed}, {"generated_by_rank", image.rank}});
  if (!events_) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  events_->run_finished("completed", {}, seconds, extra);
}

void GenerateEvents::failed(const std::exception& error) {
  if (!events_) return;
  const auto* ours = dynamic_cast<const Error*>(&error);
  const ErrorKind kind = ours ? ours->kind() : ErrorKind::runtime;
  const int code = kind == ErrorKind::usage ? 2 : kind == ErrorKind::data ? 3 : kind == ErrorKind::storage ? 4 : 1;
  events_->run_failed(kind, error.what(), code);
}

}  // namespace medsynth::cli
