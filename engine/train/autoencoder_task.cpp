#include "train/autoencoder_task.hpp"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "data/batch_loader.hpp"
#include "data/volume_dataset.hpp"
#include "models/autoencoder_kl.hpp"
#include "train/autocast_scope.hpp"
#include "train/validation_means.hpp"
#include "metrics/losses.hpp"
#include "train/patch_training_data.hpp"
#include "train/patch_gan_training.hpp"
#include "data/sliding_window_inference.hpp"

namespace medsynth {

struct AutoencoderTask::Impl {
  JobSpec job;
  AutoencoderKL autoencoder{nullptr};
  PatchGanTraining gan;
  c10::Device device{c10::kCPU};
  int compression = 4;
};

AutoencoderTask::AutoencoderTask(const JobSpec& job) : impl_(std::make_unique<Impl>()) {
  impl_->job = job;
  auto options = AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss);
  impl_->autoencoder = AutoencoderKL(options);
  impl_->compression = options.compression();
  impl_->gan = PatchGanTraining(job, job.loss.adv_weight, job.model.discriminator.start_step);
}

AutoencoderTask::~AutoencoderTask() = default;

std::vector<NamedModule> AutoencoderTask::modules() {
  std::vector<NamedModule> out{{"autoencoder", impl_->autoencoder.ptr()}};
  impl_->gan.add_module(out);
  return out;
}

std::vector<OptimizerGroup> AutoencoderTask::optimizer_groups() {
  std::vector<OptimizerGroup> groups{optimizer_group("generator", "autoencoder", *impl_->autoencoder)};
  impl_->gan.add_optimizer_group(groups);
  return groups;
}

// eps of the reparameterisation, one generator per sample (see Batch::sample_keys);
// undefined without keys (the model then draws from the global generator).
std::function<at::Tensor(const at::Tensor&)> AutoencoderTask::sample_noise(const std::vector<std::uint64_t>& keys, std::int64_t batch) const {
  if (static_cast<std::int64_t>(keys.size()) != batch) return {};
  return [keys](const at::Tensor& z_mu) {
    std::vector<at::Tensor> eps;
    for (std::uint64_t key : keys) {
      auto generator = at::make_generator<at::CPUGeneratorImpl>(key);
      eps.push_back(at::randn(z_mu.sizes().slice(1), generator, at::TensorOptions().dtype(at::kFloat)));
    }
    return at::stack(eps).to(z_mu.device(), z_mu.scalar_type());
  };
}

bool AutoencoderTask::group_active(std::size_t group, int step) const { return group == 0 || impl_->gan.active(step); }

at::Tensor AutoencoderTask::compute_loss(std::size_t group, const StepBatch& step_batch, int step,
                                         std::map<std::string, double>& terms) {
  auto& m = *impl_;
  const at::Tensor& batch = step_batch.images;
  if (group == 0) {
    auto out = m.autoencoder->forward(batch, sample_noise(step_batch.sample_keys, batch.size(0)));
    at::Tensor recon_loss = reconstruction_loss(out.reconstruction.to(at::kFloat), batch, m.job.loss.recon_loss);
    at::Tensor kl = kl_loss(out.z_mu.to(at::kFloat), out.z_log_var.to(at::kFloat));
    at::Tensor loss = recon_loss + m.job.loss.kl_weight * kl;
    terms["train/recon_loss"] += recon_loss.item<double>();
    terms["train/kl_loss"] += kl.item<double>();
    return m.gan.with_generator_term(loss, out.reconstruction, batch, step, terms);
  }
  // Discriminator: real volumes vs the generator's reconstructions of them.
  return m.gan.discriminator_loss(terms);
}

std::unique_ptr<TrainingData> AutoencoderTask::make_data(const RunShard& shard) {
  return std::make_unique<PatchTrainingData>(
      impl_->job, shard, [this](const VolumeDataset& dataset, const std::vector<std::size_t>& items, int keep_outputs) {
        return validate(dataset, items, keep_outputs);
      });
}

at::Tensor AutoencoderTask::reconstruct_volume(const at::Tensor& image) {
  const int f = impl_->compression;
  std::vector<int64_t> pad;  // F.pad order: last dim first
  for (int d = 4; d >= 2; --d) {
    int64_t size = image.size(d);
    int64_t target = (size + f - 1) / f * f;
    pad.push_back(0);
    pad.push_back(target - size);
  }
  at::Tensor padded = at::constant_pad_nd(image, pad, image.min().item<double>()).to(impl_->device);
  const auto& t = impl_->job.training;
  at::Tensor recon;
  if (t.val_sliding_window) {
    const auto& p = impl_->job.data.patch_size;  // x, y, z
    SlidingWindowOptions sw;
    sw.roi = {p[2], p[1], p[0]};
    sw.overlap = t.val_overlap;
    recon = sliding_window_inference(padded, sw, [&](const at::Tensor& w) { return impl_->autoencoder->reconstruct(w); });
  } else {
    recon = impl_->autoencoder->reconstruct(padded);
  }
  return recon.slice(2, 0, image.size(2)).slice(3, 0, image.size(3)).slice(4, 0, image.size(4)).to(at::kCPU, at::kFloat);
}

ValidationResult AutoencoderTask::validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items, int keep_outputs) {
  at::NoGradGuard no_grad;
  AutocastScope autocast(impl_->job.training.amp, impl_->device.type());  // inference in the training precision
  train_mode(false);
  ValidationResult result;
  ValidationMeans means;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const std::size_t i = items[n];
    const Volume& volume = dataset.get(i);
    at::Tensor image = volume_to_tensor(volume);
    at::Tensor recon = reconstruct_volume(image).clamp(0.0, 1.0);
    means.add_image_scores(recon, image);
    keep_validation_item(result, n, keep_outputs, dataset.id(i), volume, recon, "reconstruction-" + dataset.id(i));
  }
  train_mode(true);
  means.write(result, static_cast<int>(items.size()));
  return result;
}

void AutoencoderTask::to(const c10::Device& device) {
  impl_->device = device;
  impl_->autoencoder->to(device);
  impl_->gan.to(device);
}

void AutoencoderTask::train_mode(bool on) {
  impl_->autoencoder->train(on);
  impl_->gan.train_mode(on);
}

}  // namespace medsynth
