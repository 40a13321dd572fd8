#include "diffusion/translation_task.hpp"

#include <ATen/ATen.h>

#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "data/case_grids.hpp"
#include "data/case_listing.hpp"
#include "data/counter_rng.hpp"
#include "data/volume_tensor.hpp"
#include "diffusion/ldm_task.hpp"
#include "diffusion/reverse_process.hpp"
#include "train/validation_means.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "train/autocast_scope.hpp"
#include "volume/volume_io.hpp"

namespace fs = std::filesystem;

namespace medsynth {
namespace {

constexpr std::uint64_t k_translation_noise = 0x7472616e73ull;  // "trans"

// The contrasts a translation job reads, in channel order: conditions, then the target.
std::vector<std::string> job_contrasts(const JobSpec& job) {
  std::vector<std::string> contrasts = job.data.channels;
  contrasts.push_back(job.data.target);
  return contrasts;
}

// What validate_job cannot see: the contrast spellings (data/case_listing.hpp).
void check_target_is_no_input(const JobSpec& job) {
  for (const auto& c : job.data.channels)
    if (same_contrast(c, job.data.target))
      throw ConfigError(
          {{"data.target", "'" + job.data.target + "' is also an input contrast (data.channels: " + c + ")"}},
          "translation");
}

// Item `item`'s contrasts stacked as channels [1, C, Z, Y, X], each checked
// to lie on the first contrast's grid (a case is refused, not resampled).
at::Tensor case_channels(const ContrastDatasets& contrasts, std::size_t item) {
  const VolumeDataset& first = *contrasts.front();
  std::vector<at::Tensor> channels;
  for (const auto& contrast : contrasts) {
    const Volume& v = contrast->get(item);
    check_contrast_grid(v, first.get(item), *contrast, first, item);
    channels.push_back(volume_to_tensor(v));
  }
  return at::cat(channels, 1);
}

// [-1, 1], where the diffusion model works, from the loaders' [0, 1].
at::Tensor to_model_range(const at::Tensor& x) { return x * 2.0 - 1.0; }

}  // namespace

DiffusionUnetOptions translation_unet_options(const JobSpec& job) {
  DiffusionUnetOptions o = job.model.diffusion_unet;
  o.in_channels = static_cast<int>(job.data.channels.size()) + 1;
  o.out_channels = 1;
  return o;
}

TranslationTask::TranslationTask(const JobSpec& job) : job_(job) {
  check_target_is_no_input(job);
  unet_ = DiffusionModelUNet(translation_unet_options(job));
  scheduler_ = make_scheduler(job.scheduler);
}

TranslationTask::~TranslationTask() = default;

std::vector<NamedModule> TranslationTask::modules() { return {{"unet", unet_.ptr()}}; }

std::vector<OptimizerGroup> TranslationTask::optimizer_groups() {
  return {optimizer_group("diffusion", "unet", *unet_)};
}

std::unique_ptr<TrainingData> TranslationTask::make_data(const RunShard& shard) {
  return std::make_unique<CaseTrainingData>(job_, shard, job_contrasts(job_),
                                            [this](const ContrastDatasets& cases, const std::vector<std::size_t>& items,
                                                   int keep) { return validate(cases, items, keep); });
}

at::Tensor TranslationTask::compute_loss(std::size_t, const StepBatch& batch, int,
                                         std::map<std::string, double>& terms) {
  const std::int64_t conditions = batch.images.size(1) - 1;
  const auto images = to_model_range(batch.images);
  const auto condition = images.slice(1, 0, conditions);
  const auto x0 = images.slice(1, conditions);
  const auto [noise, u] = batch_draws(x0, batch.sample_keys);
  const double numel = static_cast<double>(x0.size(2) * x0.size(3) * x0.size(4));
  const auto t = scheduler_->training_timesteps(u, numel);
  const auto xt = scheduler_->add_noise(x0, noise, t);
  const auto target = scheduler_->training_target(x0, noise, t);
  // Fast-DDPM's order: the condition images, then the noisy target.
  const auto prediction =
      unet_->forward(at::cat({condition, xt}, 1), t.to(x0.device(), at::kFloat), UnetConditioning{});
  auto loss = at::mse_loss(prediction.to(at::kFloat), target.to(at::kFloat));
  terms["train/diffusion_loss"] += loss.item<double>();
  return loss;
}

at::Tensor TranslationTask::translate(const at::Tensor& conditions, std::uint64_t key) {
  // Pad every axis to a multiple of the UNet's downsampling with the background (0).
  const std::int64_t factor = std::int64_t{1} << (job_.model.diffusion_unet.channels.size() - 1);
  std::vector<std::int64_t> pad;  // constant_pad_nd order: last axis first
  for (int d = 4; d >= 2; --d) {
    const std::int64_t size = conditions.size(d);
    pad.push_back(0);
    pad.push_back((size + factor - 1) / factor * factor - size);
  }
  const auto condition = to_model_range(at::constant_pad_nd(conditions, pad, 0.0)).to(device_);
  std::vector<std::int64_t> shape(condition.sizes().begin(), condition.sizes().end());
  shape[1] = 1;
  SamplingConditioning conditioning;
  conditioning.concatenated = condition;  // Fast-DDPM: the known contrasts before x, at every step
  const auto x = reverse_process(*unet_, *scheduler_, shape,
                                 at::make_generator<at::CPUGeneratorImpl>(CounterRng{key, k_translation_noise}.next()),
                                 device_, conditioning);
  const auto image = ((x.to(at::kCPU, at::kFloat) + 1.0) * 0.5).clamp(0.0, 1.0);
  return image.slice(2, 0, conditions.size(2)).slice(3, 0, conditions.size(3)).slice(4, 0, conditions.size(4));
}

ValidationResult TranslationTask::validate(const ContrastDatasets& cases, const std::vector<std::size_t>& items,
                                           int keep_outputs) {
  at::NoGradGuard no_grad;
  AutocastScope autocast(job_.training.amp, device_.type());  // sampling in the training precision
  train_mode(false);
  ValidationResult result;
  ValidationMeans means;
  const std::size_t conditions = cases.size() - 1;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const std::size_t i = items[n];
    const Volume& real = cases.back()->get(i);
    const at::Tensor stacked = case_channels(cases, i);
    const at::Tensor target = stacked.slice(1, static_cast<std::int64_t>(conditions));
    const at::Tensor translated =
        translate(stacked.slice(1, 0, static_cast<std::int64_t>(conditions)), hash_keys({0x76616cull, i}));
    means.add_image_scores(translated, target);
    // The input shown beside the translation is the real target contrast:
    // what the translation should look like, not the conditions it came from.
    keep_validation_item(result, n, keep_outputs, cases.back()->id(i), real, translated,
                         translated_file_stem(cases.front()->path(i), cases.front()->id(i), job_.data.target));
  }
  train_mode(true);
  means.write(result, static_cast<int>(items.size()));
  return result;
}

void TranslationTask::to(const c10::Device& device) {
  device_ = device;
  unet_->to(device);
}

void TranslationTask::train_mode(bool on) { unet_->train(on); }

namespace {

// Where case i's translation goes.
std::string translated_path(const JobSpec& job, const VolumeDataset& first, std::size_t i,
                            const std::string& output_dir) {
  return (fs::path(output_dir) / first.id(i) /
          (translated_file_stem(first.path(i), first.id(i), job.data.target) + ".nii.gz"))
      .string();
}

// Every rank checks every case, so all of them refuse together (none waits for another).
void refuse_replacing_files(const JobSpec& job, const VolumeDataset& first, const TranslateOptions& options) {
  std::map<std::string, std::string> inputs;  // canonical path -> "case X's t2f"
  const auto key = [](const std::string& path) { return fs::weakly_canonical(fs::absolute(path)).string(); };
  for (const CaseEntry& c : list_job_cases(job.data)) {
    for (const auto& [contrast, file] : c.contrasts) inputs[key(file)] = "case " + c.id + "'s " + contrast;
    if (!c.label.empty()) inputs[key(c.label)] = "case " + c.id + "'s segmentation";
  }
  for (std::size_t i = 0; i < first.size(); ++i) {
    const std::string path = translated_path(job, first, i, options.output_dir);
    if (const auto input = inputs.find(key(path)); input != inputs.end())
      throw UsageError("generate: " + path + " is an input (" + input->second +
                       "); it is never replaced: give --output-dir another folder");
    if (!options.overwrite && fs::exists(path))
      throw UsageError("generate: " + path + " exists; --overwrite replaces it, or give --output-dir another folder");
  }
}

}  // namespace

std::vector<std::string> translate_cases(const JobSpec& job, TranslationTask& task, const TranslateOptions& options) {
  const ContrastDatasets inputs = contrast_datasets(job, job.data.channels, "all");
  const auto& first = *inputs.front();
  refuse_replacing_files(job, first, options);
  std::vector<const VolumeDataset*> others;
  for (std::size_t c = 1; c < inputs.size(); ++c) others.push_back(inputs[c].get());
  check_case_grids(first, others);  // before the first image is written
  at::NoGradGuard no_grad;
  task.train_mode(false);
  std::vector<std::string> written;
  for (std::size_t i = static_cast<std::size_t>(options.rank); i < first.size();
       i += static_cast<std::size_t>(options.world_size)) {
    const at::Tensor translated =
        task.translate(case_channels(inputs, i), hash_keys({static_cast<std::uint64_t>(job.generate.base_seed), i}));
    const std::string path = translated_path(job, first, i, options.output_dir);
    fs::create_directories(fs::path(path).parent_path());
    write_volume(tensor_to_volume(translated, first.get(i)), path);
    written.push_back(path);
    if (options.on_written) options.on_written(path);
  }
  return written;
}

}  // namespace medsynth
