// The session's validation (training_session.hpp): every rank validates its
// share of the held-out volumes; the means are combined weighted by count, so
// the result equals a one-process validation. Rank 0 writes the task's files
// and the first item's slices (PNG files, TensorBoard images).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "dist/process_group.hpp"
#include "events/event_writer.hpp"
#include "events/gray_png.hpp"
#include "events/run_logger.hpp"
#include "events/tensorboard_writer.hpp"
#include "state/ema_weights.hpp"
#include "train/training_data.hpp"
#include "train/training_session.hpp"
#include "volume/atomic_file.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {
namespace {

// Names are the same on every rank (same task); a rank with no volume has
// none, so rank 0's names (it always has volume 0) are broadcast implicitly
// by iterating over a fixed list from the task's first result on rank 0.
std::map<std::string, double> reduce_metrics(DistContext& dist, int step, const ValidationResult& r) {
  const std::string names_text = dist.share_from_rank0("val-names-" + std::to_string(step), [&] {
    std::string t;
    for (const auto& [name, value] : r.metrics) t += name + "\n";
    return t;
  }());
  std::vector<std::string> names;
  for (std::size_t b = 0, e; (e = names_text.find('\n', b)) != std::string::npos; b = e + 1) names.push_back(names_text.substr(b, e - b));
  std::vector<double> sums;
  for (const auto& name : names) {
    auto it = r.metrics.find(name);
    sums.push_back(it == r.metrics.end() ? 0.0 : it->second * r.count);
  }
  sums.push_back(r.count);
  sums = dist.all_reduce_sum(sums, "validation metrics");
  std::map<std::string, double> out;
  const double count = sums.back();
  for (std::size_t i = 0; i < names.size() && count > 0; ++i) out[names[i]] = sums[i] / count;
  return out;
}

// A CT reconstruction is written in HU, mapped back through the job's window
// (the model saw [0, 1]; clipped to it first, as generate does): issue 38, the
// quick start's reconstructions read [0, 0.92], and Slicer showed them as air.
// MRI keeps the model's scale: its normalisation has no physical unit.
Volume in_physical_units(const Volume& model_units, const JobSpec& job) {
  if (job.data.modality != Modality::ct) return model_units;
  Volume v = model_units;
  const double lo = job.data.ct_window[0], hi = job.data.ct_window[1];
  for (float& x : v.voxels) x = static_cast<float>(std::clamp(static_cast<double>(x), 0.0, 1.0) * (hi - lo) + lo);
  return v;
}

// PNG files for the console (output/val-images/stepNNNNNN-<plane>.png, one
// set per validation: small, and the run keeps its history as TensorBoard
// does) and the same PNGs as TensorBoard images val/images/<plane>.
void write_validation_images(TrainingSession& s, const ValidationImages& images) {
  if (!s.job.output.tensorboard_images || images.planes.empty()) return;
  const std::string dir = s.options.run.output_dir() + "/val-images";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw RuntimeError(dir + ": cannot create: " + ec.message());
  char step[16];
  std::snprintf(step, sizeof(step), "step%06d", s.progress.step);
  for (const PlaneImage& p : images.planes) {
    const std::string plane(to_string(p.plane));
    const std::string png = encode_gray_png(p.image);
    const std::string path = dir + "/" + step + "-" + plane + ".png";
    write_string_atomically(path, png);
    if (s.tensorboard)
      s.tensorboard->add_gray_png("val/images/" + plane, p.image.width, p.image.height, png, s.progress.step);
    if (s.events)
      s.events->artifact(path, "validation_image", s.progress.step, {{"plane", plane}, {"item", images.item}});
  }
}

void write_validation_files(TrainingSession& s, const ValidationResult& r, bool write_outputs) {
  for (const auto& [name, text] : r.files) {
    const std::string path = s.options.run.output_dir() + "/" + name;
    write_string_atomically(path, text);
    if (s.events) s.events->artifact(path, "table", s.progress.step);
  }
  write_validation_images(s, r.images);
  if (!write_outputs) return;
  for (const auto& [stem, volume] : r.outputs) {
    const std::string path = s.options.run.output_dir() + "/" + stem + ".nii.gz";
    write_volume(in_physical_units(volume, s.job), path);
    if (s.events) s.events->artifact(path, "reconstruction", s.progress.step);
  }
}

}  // namespace

std::map<std::string, double> TrainingSession::validate(int keep_outputs, bool write_outputs) {
  const auto started_at = TrainingClock::now();
  ValidationResult r;
  {
    ScopedEmaWeights averaged(*ema);
    r = data->validate(rank0 ? keep_outputs : 0);
  }
  if (dist) r.metrics = reduce_metrics(*dist, progress.step, r);
  for (const auto& [name, value] : r.metrics) metric(name, value);
  progress.last_metrics = r.metrics;
  std::string line = "validation at step " + std::to_string(progress.step) + ":";
  for (const auto& [name, value] : r.metrics) line += " " + name + "=" + std::to_string(value);
  info(line + " (" + std::to_string(std::chrono::duration<double>(TrainingClock::now() - started_at).count()) + " s)");
  if (rank0) write_validation_files(*this, r, write_outputs);
  return r.metrics;
}

}  // namespace medsynth
