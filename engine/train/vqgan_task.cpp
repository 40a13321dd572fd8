#include "train/vqgan_task.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "data/patch_batch_source.hpp"
#include "data/volume_dataset.hpp"
#include "data/volume_tensor.hpp"
#include "dist/process_group.hpp"
#include "models/vqgan.hpp"
#include "train/autocast_scope.hpp"
#include "train/validation_means.hpp"
#include "metrics/losses.hpp"
#include "metrics/perceptual_loss.hpp"
#include "train/own_batch_data.hpp"
#include "train/patch_gan_training.hpp"

namespace medsynth {

PatchGridOptions patch_grid_options(const DataSpec& data) {
  PatchGridOptions o;
  for (int d = 0; d < 3; ++d) {
    const int axis = 2 - d;  // job files list x, y, z
    o.patch[d] = data.patch_size[axis];
    o.stride[d] = data.patch_stride[axis] > 0 ? data.patch_stride[axis] : data.patch_size[axis];
  }
  return o;
}

struct VqganTask::Impl {
  JobSpec job;
  Vqgan vqgan{nullptr};
  // medicaldiffusion's two discriminators: "video" on whole patches, "image" on slices.
  PatchGanTraining volume_gan, slice_gan;
  std::unique_ptr<PerceptualLoss> perceptual;  // loss.perceptual_weight > 0
  c10::Device device{c10::kCPU};
  std::unique_ptr<VolumeDataset> train_set, val_set;
};

VqganTask::VqganTask(const JobSpec& job) : impl_(std::make_unique<Impl>()) {
  impl_->job = job;
  const VqganSpec& q = job.model.vqgan;
  impl_->vqgan = Vqgan(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss), q);  // q's quantiser options
  impl_->volume_gan = PatchGanTraining(job, q.video_gan_weight, q.discriminator_iter_start,
                                       PatchGanTraining::View::volumes, q.gan_feat_weight);
  impl_->slice_gan = PatchGanTraining(job, q.image_gan_weight, q.discriminator_iter_start,
                                      PatchGanTraining::View::slices, q.gan_feat_weight);
  if (job.loss.perceptual_weight > 0)
    impl_->perceptual =
        std::make_unique<PerceptualLoss>(job.loss.perceptual_network, job.loss.perceptual_fake_3d_ratio);
}

// Optimizer groups: the generator, then each enabled discriminator in this order.
std::vector<PatchGanTraining*> VqganTask::discriminators() const {
  std::vector<PatchGanTraining*> out;
  for (PatchGanTraining* g : {&impl_->volume_gan, &impl_->slice_gan})
    if (g->enabled()) out.push_back(g);
  return out;
}

VqganTask::~VqganTask() = default;

std::vector<NamedModule> VqganTask::modules() {
  std::vector<NamedModule> out{{"vqgan", impl_->vqgan.ptr()}};
  for (PatchGanTraining* g : discriminators()) g->add_module(out);
  return out;
}

std::vector<OptimizerGroup> VqganTask::optimizer_groups() {
  std::vector<OptimizerGroup> groups{optimizer_group("generator", "vqgan", *impl_->vqgan)};
  for (PatchGanTraining* g : discriminators()) g->add_optimizer_group(groups);
  return groups;
}

bool VqganTask::group_active(std::size_t group, int step) const {
  return group == 0 || discriminators().at(group - 1)->active(step);
}

namespace {

void sum_codebook_statistics_over_ranks(Vqgan& vqgan, DistContext* dist) {
  // EMA statistics and restart vectors are summed over ranks, so every rank
  // keeps the same codebook (gradients alone would not keep EMA buffers equal).
  vqgan->quantizer->set_reduce([dist](std::vector<at::Tensor>& tensors) {
    // One flat buffer: a Gloo all-reduce over several tensors wants equal shapes.
    std::vector<at::Tensor> flat;
    for (auto& t : tensors) flat.push_back(t.detach().to(at::kCPU, at::kFloat).reshape({-1}));
    std::vector<at::Tensor> buffer{at::cat(flat).contiguous()};
    dist->all_reduce_sum(buffer, "vqgan codebook statistics");
    std::int64_t offset = 0;
    for (auto& t : tensors) {
      const std::int64_t n = t.numel();
      t = buffer[0].slice(0, offset, offset + n).view(t.sizes()).to(t.device(), t.scalar_type());
      offset += n;
    }
  });
}

}  // namespace

at::Tensor VqganTask::compute_loss(std::size_t group, const StepBatch& step_batch, int step,
                                   std::map<std::string, double>& terms) {
  auto& m = *impl_;
  const at::Tensor& batch = step_batch.images;
  if (group == 0) {
    VqganOutput out = m.vqgan->forward(batch);
    at::Tensor recon_loss = reconstruction_loss(out.reconstruction.to(at::kFloat), batch.to(at::kFloat), m.job.loss.recon_loss);
    at::Tensor loss = recon_loss + out.quantizer.loss;
    if (m.perceptual) {
      at::Tensor perceptual = m.perceptual->forward(out.reconstruction, batch);
      loss = loss + m.job.loss.perceptual_weight * perceptual;
      terms["train/perceptual_loss"] += perceptual.item<double>();
    }
    terms["train/recon_loss"] += recon_loss.item<double>();
    terms["train/vq_loss"] += out.quantizer.loss.item<double>();
    terms["train/perplexity"] += out.quantizer.perplexity;
    terms["train/codes_restarted"] += out.quantizer.restarted;
    loss = m.volume_gan.with_generator_term(loss, out.reconstruction, batch, step, terms);
    return m.slice_gan.with_generator_term(loss, out.reconstruction, batch, step, terms);
  }
  return discriminators().at(group - 1)->discriminator_loss(terms);
}

std::unique_ptr<TrainingData> VqganTask::make_data(const RunShard& shard) {
  auto& m = *impl_;
  if (shard.dist) sum_codebook_statistics_over_ranks(m.vqgan, shard.dist);
  const int rank = shard.rank, world_size = shard.world_size;
  const auto seed = static_cast<std::uint64_t>(m.job.training.base_seed);
  m.train_set = std::make_unique<VolumeDataset>(m.job.data, "train", seed);
  m.val_set = std::make_unique<VolumeDataset>(m.job.data, "val", seed);
  PatchSourceOptions o;
  o.grid = patch_grid_options(m.job.data);
  o.batch_size = m.job.training.batch_size;
  o.foreground_threshold = m.job.data.foreground_threshold;
  o.min_foreground = m.job.data.patch_min_foreground;
  o.base_seed = seed;
  o.rank = rank;
  o.world_size = world_size;
  PatchBatchSource::AgreeMin agree;
  if (shard.dist) {
    DistContext* dist = shard.dist;
    agree = [dist, world_size, rank](std::int64_t count) {
      std::vector<double> counts(static_cast<std::size_t>(world_size), 0.0);
      counts[static_cast<std::size_t>(rank)] = static_cast<double>(count);
      counts = dist->all_reduce_sum(counts, "vqgan patch counts");
      return static_cast<std::int64_t>(*std::min_element(counts.begin(), counts.end()));
    };
  }
  const auto& p = m.job.data.patch_size;
  return std::make_unique<OwnBatchData>(
      std::make_unique<PatchBatchSource>(*m.train_set, o, agree),
      [this, shard](int keep_outputs) {
        const VolumeDataset& val = *impl_->val_set;
        return validate(val,
                        validation_items(val.size(), impl_->job.training.val_max_volumes, shard.rank, shard.world_size),
                        keep_outputs);
      },
      std::int64_t{p[0]} * p[1] * p[2], m.val_set->size());
}

at::Tensor VqganTask::reconstruct_volume(const at::Tensor& image) {
  const PatchGridOptions options = patch_grid_options(impl_->job.data);
  const PatchGrid grid = make_patch_grid({image.size(2), image.size(3), image.size(4)}, options);
  const bool overlap = options.stride != options.patch;
  PatchStitcher stitcher(grid, image.size(1), overlap ? PatchBlend::gaussian : PatchBlend::constant, at::TensorOptions());
  const double fill = image.min().item<double>();
  const std::size_t batch = 4;  // patches per forward: bounds memory on 128^3 patches
  for (std::size_t first = 0; first < grid.size(); first += batch) {
    std::vector<at::Tensor> patches;
    const std::size_t last = std::min(grid.size(), first + batch);
    for (std::size_t i = first; i < last; ++i) patches.push_back(extract_patch(image, grid, i, fill));
    at::Tensor recon = impl_->vqgan->reconstruct(at::stack(patches).to(impl_->device)).to(at::kCPU, at::kFloat);
    for (std::size_t i = first; i < last; ++i) stitcher.add(i, recon[static_cast<std::int64_t>(i - first)]);
  }
  return stitcher.result().unsqueeze(0);
}

ValidationResult VqganTask::validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items, int keep_outputs) {
  auto& m = *impl_;
  at::NoGradGuard no_grad;
  AutocastScope autocast(m.job.training.amp, m.device.type());
  train_mode(false);
  ValidationResult result;
  ValidationMeans means;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const Volume& volume = dataset.get(items[n]);
    at::Tensor image = volume_to_tensor(volume);
    at::Tensor recon = reconstruct_volume(image).clamp(0.0, 1.0);
    means.add_image_scores(recon, image, /*l1=*/false);
    // Codebook usage on the held-out volume: perplexity of its codes.
    const PatchGrid grid = make_patch_grid({image.size(2), image.size(3), image.size(4)}, patch_grid_options(m.job.data));
    at::Tensor counts = at::zeros({m.job.model.vqgan.num_embeddings});
    for (std::size_t i = 0; i < grid.size(); ++i) {
      at::Tensor patch = extract_patch(image, grid, i, image.min().item<double>()).unsqueeze(0).to(m.device);
      at::Tensor z = m.vqgan->pre_quant_conv->forward(m.vqgan->encoder->forward(patch)).to(at::kFloat);
      at::Tensor idx = m.vqgan->quantizer->nearest(z.permute({0, 2, 3, 4, 1}).reshape({-1, z.size(1)})).to(at::kCPU);
      counts.index_add_(0, idx, at::ones({idx.size(0)}));
    }
    at::Tensor p = counts / counts.sum();
    means.add("val/perplexity", at::exp(-(p * at::log(p + 1e-10)).sum()).item<double>());
    keep_validation_item(result, n, keep_outputs, dataset.id(items[n]), volume, recon,
                         "reconstruction-" + dataset.id(items[n]));
  }
  train_mode(true);
  means.write(result, static_cast<int>(items.size()));
  return result;
}

void VqganTask::to(const c10::Device& device) {
  impl_->device = device;
  impl_->vqgan->to(device);
  impl_->volume_gan.to(device);
  impl_->slice_gan.to(device);
  if (impl_->perceptual) impl_->perceptual->to(device);
}

void VqganTask::train_mode(bool on) {
  impl_->vqgan->train(on);
  impl_->volume_gan.train_mode(on);
  impl_->slice_gan.train_mode(on);
}

}  // namespace medsynth
