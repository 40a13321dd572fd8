#include "diffusion/controlnet_task.hpp"

#include <ATen/ATen.h>

#include <cmath>
#include <set>

#include "config/maisi_network_config.hpp"
#include "core/error.hpp"
#include "data/counter_rng.hpp"
#include "data/tumour_free_label.hpp"
#include "diffusion/latent_batch_loader.hpp"
#include "diffusion/latent_files.hpp"
#include "diffusion/ldm_task.hpp"
#include "metrics/losses.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "state/tensor_file.hpp"
#include "state/training_state.hpp"
#include "train/own_batch_data.hpp"

namespace medsynth {
namespace {

ControlNetMaisiOptions controlnet_options(const JobSpec& job) {
  if (job.ldm.controlnet_config.empty())
    throw UsageError(
        "ldm.controlnet_config: name the NV-Generate network config whose controlnet_def is trained "
        "(train IMPORTED_RUN task=controlnet sets the imported one)");
  const auto config = read_maisi_network_config(job.ldm.controlnet_config);
  if (!config.controlnet) throw DataError(job.ldm.controlnet_config, "has no controlnet_def: no ControlNet to train");
  return *config.controlnet;
}

// MONAI's copy_model_state(controlnet, unet.state_dict()): every UNet tensor
// whose name and shape the ControlNet shares.
void copy_matching_weights(torch::nn::Module& from, torch::nn::Module& to) {
  at::NoGradGuard no_grad;
  const auto source = from.named_parameters(/*recurse=*/true);
  for (auto& p : to.named_parameters(/*recurse=*/true))
    if (const auto* s = source.find(p.key()); s && s->sizes() == p.value().sizes()) p.value().copy_(*s);
}

// [B, bits, ...]: bit b of each voxel's label in channel b (MAISI's binarize_labels).
at::Tensor binary_channels(const at::Tensor& labels, int bits) {
  const auto whole = labels.squeeze(1).to(at::kLong);
  std::vector<at::Tensor> channels;
  for (int b = 0; b < bits; ++b) channels.push_back(whole.bitwise_and(std::int64_t{1} << b).ne(0).to(at::kFloat));
  return at::stack(channels, 1);
}

// The label values a ControlNet of `bits` channels can read: whole, in [0, 2^bits - 1].
void check_label_values(const at::Tensor& label, int bits, const std::string& path) {
  const double max_label = std::ldexp(1.0, bits) - 1;
  if (label.lt(0).any().item<bool>() || label.gt(max_label).any().item<bool>() ||
      label.ne(label.round()).any().item<bool>())
    throw DataError(path, "is not a label map of whole values in [0, " +
                              std::to_string(static_cast<long long>(max_label)) + "] (the ControlNet reads " +
                              std::to_string(bits) + " binary channels)");
}

}  // namespace

ControlNetTask::ControlNetTask(const JobSpec& job, double scale_factor) : job_(job), scale_(scale_factor) {
  if (job.ldm.diffusion_init.empty())
    throw UsageError(
        "ldm.diffusion_init: task controlnet steers a trained UNet; name its checkpoint (train RUN sets the run's)");
  unet_ = DiffusionModelUNet(unet_options(job));
  restore_weights({{"unet", unet_.ptr()}}, read_tensor_file(job.ldm.diffusion_init), job.ldm.diffusion_init,
                  /*prefer_ema=*/true);
  unet_->eval();
  for (auto& p : unet_->parameters()) p.set_requires_grad(false);
  controlnet_ = ControlNetMaisi(controlnet_options(job));
  copy_matching_weights(*unet_, *controlnet_);
  scheduler_ = make_scheduler(job.scheduler);
}

ControlNetTask::~ControlNetTask() = default;

std::vector<NamedModule> ControlNetTask::modules() { return {{"controlnet", controlnet_.ptr()}}; }

std::vector<OptimizerGroup> ControlNetTask::optimizer_groups() {
  return {optimizer_group("controlnet", "controlnet", *controlnet_)};
}

std::unique_ptr<TrainingData> ControlNetTask::make_data(const RunShard& shard) {
  const std::string& dir = job_.ldm.embedding_dir;
  if (dir.empty())
    throw UsageError("ldm.embedding_dir: the controlnet stage needs the folder of encoded latents and labels");
  auto latents = read_latents(dir, "train");
  const int bits = controlnet_->options().conditioning_embedding_in_channels;
  for (auto& r : latents) {
    r.condition = read_label(dir, r.id);
    check_label_values(r.condition, bits, label_path(dir, r.id));
  }
  LatentLoaderOptions o;
  o.batch_size = job_.training.batch_size;
  o.drop_last = job_.distributed.drop_last;
  o.base_seed = static_cast<std::uint64_t>(job_.training.base_seed);
  o.rank = shard.rank;
  o.world_size = shard.world_size;
  o.scale_factor = scale_;
  const std::int64_t voxels_per_sample = latents.front().latent.numel();
  auto loader = std::make_unique<LatentBatchLoader>(std::move(latents), o);
  source_ = loader.get();
  // The held-out pairs, read once: validation may run after every step.
  try {
    val_ = read_latents(dir, "val");
  } catch (const DataError&) {
  }
  for (auto& r : val_) {
    r.condition = read_label(dir, r.id);
    check_label_values(r.condition, bits, label_path(dir, r.id));
  }
  return std::make_unique<OwnBatchData>(
      std::move(loader), [this, shard](int) { return validate(shard.rank, shard.world_size); }, voxels_per_sample,
      val_.size());
}

at::Tensor ControlNetTask::steered_prediction(const at::Tensor& xt, const at::Tensor& timesteps,
                                              const at::Tensor& labels, const UnetEmbeddingInputs& inputs) {
  const int bits = controlnet_->options().conditioning_embedding_in_channels;
  const auto condition = binary_channels(labels, bits).to(xt.device());
  // The ControlNet sees the class label as the UNet does (MAISI passes the modality to both).
  UnetEmbeddingInputs classes;
  classes.class_labels = inputs.class_labels;
  auto residuals = controlnet_->forward(xt, timesteps, condition, 1.0, {}, classes);
  UnetConditioning conditioning;
  conditioning.embedding = inputs;
  conditioning.down_block_additional_residuals = std::move(residuals.down_block_residuals);
  conditioning.mid_block_additional_residual = residuals.mid_block_residual;
  return unet_->forward(xt, timesteps, conditioning).to(at::kFloat);
}

at::Tensor ControlNetTask::steered_loss(const at::Tensor& x0, const at::Tensor& labels, const at::Tensor& noise,
                                        const at::Tensor& u, const UnetEmbeddingInputs& inputs,
                                        std::map<std::string, double>* terms) {
  const double numel = static_cast<double>(x0.size(2) * x0.size(3) * x0.size(4));
  const auto t = scheduler_->training_timesteps(u, numel);
  const auto xt = scheduler_->add_noise(x0, noise, t);
  const auto target = scheduler_->training_target(x0, noise, t);
  const auto timesteps = t.to(x0.device(), at::kFloat);
  const auto prediction = steered_prediction(xt, timesteps, labels, inputs);
  const auto error = diffusion_error(prediction, target, job_.ldm.diffusion_loss);
  const auto latent_grid = [&](const at::Tensor& image_grid) {
    return at::upsample_nearest3d(image_grid.to(x0.device(), at::kFloat), {x0.size(2), x0.size(3), x0.size(4)});
  };
  const auto& weighted = job_.ldm.controlnet_weighted_labels;
  at::Tensor loss;
  if (job_.ldm.controlnet_weighted_loss <= 1.0 || weighted.empty()) {
    loss = error.mean();
  } else {
    // NV-Generate's weighted loss: the label resized (nearest) to the latent
    // grid; latent voxels under a weighted label count controlnet_weighted_loss times.
    const auto on_latent = latent_grid(labels);
    auto roi = at::zeros_like(on_latent, at::kBool);
    for (int value : weighted) roi = roi.logical_or(on_latent.eq(value));
    loss = (error * at::where(roi, job_.ldm.controlnet_weighted_loss, 1.0).expand_as(error)).mean();
  }
  if (!terms || !job_.ldm.controlnet_region_contrastive) return loss;
  // NV-Generate's region-contrastive loss: the same noisy latent steered by
  // the tumour-free label. The changed voxels and the background (their
  // complement after a 3x3x3 dilation) are found on the image grid, then
  // resized to the latent's, as NV-Generate does.
  std::vector<at::Tensor> free;
  for (std::int64_t b = 0; b < labels.size(0); ++b) free.push_back(tumour_free_label(labels[b][0]).unsqueeze(0));
  const auto free_labels = at::stack(free);
  const auto changed = free_labels.ne(labels).to(at::kFloat);
  const auto background = 1.0 - at::max_pool3d(changed, {3, 3, 3}, {1, 1, 1}, {1, 1, 1});
  // An unchanged label steers exactly as the label does: its pass is the same.
  const bool any_change = changed.gt(0).any().item<bool>();
  const auto free_prediction = any_change ? steered_prediction(xt, timesteps, free_labels, inputs) : prediction;
  const auto r = region_contrastive_terms(prediction, free_prediction, target, latent_grid(changed),
                                          latent_grid(background), job_.ldm.controlnet_region_contrastive_delta);
  (*terms)["train/region_contrastive"] += r.region.item<double>();
  (*terms)["train/region_background"] += r.background.item<double>();
  return loss + job_.ldm.controlnet_region_contrastive_weight * (r.region + r.background);
}

at::Tensor ControlNetTask::compute_loss(std::size_t, const StepBatch& step_batch, int,
                                        std::map<std::string, double>& terms) {
  const at::Tensor& batch = step_batch.images;
  if (!step_batch.labels.defined()) throw RuntimeError("controlnet: a batch without label maps");
  const auto [noise, u] = batch_draws(batch, step_batch.sample_keys);
  // Labels as given: NV-Generate's ControlNet training does not drop them.
  const auto inputs = unet_embedding_inputs(job_, source_->last_records(), {}, device_);
  auto loss = steered_loss(batch, step_batch.labels, noise, u, inputs, &terms);
  terms["train/controlnet_loss"] += loss.item<double>();
  return loss;
}

ValidationResult ControlNetTask::validate(int rank, int world_size) {
  if (val_.empty()) return {};  // no held-out pairs: no validation metric
  at::NoGradGuard no_grad;
  controlnet_->eval();
  auto r = held_out_loss(val_, scale_, rank, world_size, device_, "val/controlnet_loss",
                         [&](const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u, std::size_t i) {
                           return steered_loss(x0, val_[i].condition.unsqueeze(0), noise, u,
                                               unet_embedding_inputs(job_, {&val_[i]}, {}, device_));
                         });
  controlnet_->train();
  return r;
}

void ControlNetTask::to(const c10::Device& device) {
  device_ = device;
  unet_->to(device);
  controlnet_->to(device);
}

void ControlNetTask::train_mode(bool on) {
  controlnet_->train(on);
  unet_->eval();  // frozen: its norms and dropout stay in inference mode
}

}  // namespace medsynth
