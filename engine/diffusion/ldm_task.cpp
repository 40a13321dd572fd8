#include "diffusion/ldm_task.hpp"

#include <ATen/ATen.h>

#include "core/error.hpp"
#include "data/counter_rng.hpp"
#include "metrics/losses.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "diffusion/latent_batch_loader.hpp"
#include "diffusion/latent_files.hpp"
#include "train/own_batch_data.hpp"

namespace medsynth {
// Uniform numbers and Gaussian noise for one sample from its key: the same
// sample gets the same timestep and noise whatever the ranks or batch size.
std::pair<double, at::Tensor> keyed_diffusion_draws(std::uint64_t key, at::IntArrayRef shape) {
  CounterRng rng{key, 0x7473ull};
  const double u = rng.uniform();
  auto gen = at::make_generator<at::CPUGeneratorImpl>(rng.next());
  return {u, at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat))};
}

ValidationResult held_out_loss(const std::vector<LatentRecord>& val, double scale, int rank, int world_size,
                               const c10::Device& device, const std::string& metric, const HeldOutLoss& loss) {
  ValidationResult r;
  double total = 0;
  for (std::size_t i = static_cast<std::size_t>(rank); i < val.size(); i += static_cast<std::size_t>(world_size)) {
    const auto x0 = (val[i].latent * scale).unsqueeze(0).to(device);
    double sum = 0;
    for (int k = 0; k < 5; ++k) {
      const auto draws = keyed_diffusion_draws(hash_keys({0x76616cull, i, static_cast<std::uint64_t>(k)}), x0.sizes());
      const auto u = at::full({1}, 0.1 + 0.2 * k, at::TensorOptions().dtype(at::kDouble));
      sum += loss(x0, draws.second.to(device), u, i).item<double>();
    }
    total += sum / 5;
    ++r.count;
  }
  if (r.count > 0) r.metrics[metric] = total / r.count;
  return r;
}

std::pair<at::Tensor, at::Tensor> batch_draws(const at::Tensor& batch, const std::vector<std::uint64_t>& keys) {
  if (keys.empty())
    return {at::randn_like(batch, batch.options().dtype(at::kFloat)),
            at::rand({batch.size(0)}, at::TensorOptions().dtype(at::kDouble))};
  std::vector<at::Tensor> noise;
  std::vector<double> u;
  for (auto key : keys) {
    auto [ui, ni] = keyed_diffusion_draws(key, batch.sizes().slice(1));
    u.push_back(ui);
    noise.push_back(ni);
  }
  return {at::stack(noise, 0).to(batch.device()), at::tensor(u, at::kDouble)};
}

std::int64_t augmented_modality(int modality, std::uint64_t key) {
  CounterRng rng{key, 0x6d6f64ull};
  const double to_family = rng.uniform(), to_unconditional = rng.uniform();
  std::int64_t label = modality;
  if (to_family < k_modality_augmentation) {
    if (label >= 2 && label < 8)
      label = 1;  // a CT variant -> plain CT
    else if (label >= 9)
      label = 8;  // an MR contrast -> plain MR
  }
  return to_unconditional < k_modality_augmentation ? 0 : label;
}

DiffusionUnetOptions unet_options(const JobSpec& job) {
  DiffusionUnetOptions o = job.model.diffusion_unet;
  o.in_channels = ldm_latent_channels(job);
  o.out_channels = ldm_latent_channels(job);
  return o;
}

LdmTask::LdmTask(const JobSpec& job, double scale_factor) : job_(job), scale_(scale_factor) {
  unet_ = DiffusionModelUNet(unet_options(job));
  scheduler_ = make_scheduler(job.scheduler);
}

LdmTask::~LdmTask() = default;

std::vector<NamedModule> LdmTask::modules() { return {{"unet", unet_.ptr()}}; }

std::vector<OptimizerGroup> LdmTask::optimizer_groups() { return {optimizer_group("diffusion", "unet", *unet_)}; }

std::unique_ptr<TrainingData> LdmTask::make_data(const RunShard& shard) {
  if (job_.ldm.embedding_dir.empty()) throw UsageError("ldm.embedding_dir: the diffusion stage needs the folder of encoded latents");
  LatentLoaderOptions o;
  o.batch_size = job_.training.batch_size;
  o.drop_last = job_.distributed.drop_last;
  o.base_seed = static_cast<std::uint64_t>(job_.training.base_seed);
  o.rank = shard.rank;
  o.world_size = shard.world_size;
  o.scale_factor = scale_;
  auto latents = read_latents(job_.ldm.embedding_dir, "train", latent_requirements(job_));
  for (const auto& r : latents) {
    // NV-Generate's files hold MONAI's [X, Y, Z, C]: only xyz networks learn from them.
    if (r.file.ends_with(".nii.gz") && job_.model.tensor_axes != "xyz")
      throw UsageError("ldm.embedding_dir: " + r.file +
                       " is NV-Generate's [X, Y, Z, C] latent, MONAI's axis order; it "
                       "trains xyz (MAISI) networks only (model.tensor_axes is " +
                       job_.model.tensor_axes + ")");
  }
  const auto& first = latents.front().latent;
  const std::int64_t factor = std::int64_t{1} << (job_.model.diffusion_unet.channels.size() - 1);
  for (int d = 1; d < 4; ++d)
    if (first.size(d) % factor != 0)
      throw DataError(latents.front().file,
                      "latent size " + std::to_string(first.size(d)) + " is not divisible by " +
                          std::to_string(factor) +
                          " (the UNet's downsampling); change the image size or model.diffusion_unet.channels");
  const std::int64_t voxels_per_sample = first.numel();
  auto loader = std::make_unique<LatentBatchLoader>(std::move(latents), o);
  source_ = loader.get();
  // The run_started event's val_volumes: the held-out latents validate() reads.
  std::size_t val_items = 0;
  try {
    val_items = read_latents(job_.ldm.embedding_dir, "val").size();
  } catch (const DataError&) {
  }
  return std::make_unique<OwnBatchData>(
      std::move(loader), [this, shard](int) { return validate(shard.rank, shard.world_size); }, voxels_per_sample,
      val_items);
}

UnetEmbeddingInputs LdmTask::embedding_inputs(const std::vector<const LatentRecord*>& samples,
                                              const std::vector<std::uint64_t>& keys) const {
  return unet_embedding_inputs(job_, samples, keys, device_);
}

UnetEmbeddingInputs unet_embedding_inputs(const JobSpec& job, const std::vector<const LatentRecord*>& samples,
                                          const std::vector<std::uint64_t>& keys, const c10::Device& device) {
  const auto& u = job.model.diffusion_unet;
  const auto& g = job.generate;
  const auto n = static_cast<std::int64_t>(samples.size());
  UnetEmbeddingInputs inputs;
  if (u.include_spacing_input) {
    auto t = at::empty({n, 3}, at::kFloat);
    for (std::int64_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a)
        t[i][a] = samples[static_cast<std::size_t>(i)]->image_spacing[static_cast<std::size_t>(a)] *
                  100.0;  // MAISI feeds mm x 100
    inputs.spacing = t.to(device);
  }
  if (u.num_class_embeds > 0) {
    std::vector<std::int64_t> labels(static_cast<std::size_t>(n), g.modality);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      const int own = samples[i]->modality;  // the file's own class, as NV-Generate trains it
      const int modality = own >= 0 ? own : g.modality;
      labels[i] = i < keys.size() ? augmented_modality(modality, keys[i]) : modality;
    }
    inputs.class_labels = at::tensor(labels, at::kLong).to(device);
  }
  // Body regions as one-hot x 100, as NV-Generate feeds them (training and
  // sampling): each latent's own (MAISI's embedding JSONs carry them), else the job's.
  const auto regions = [&](const std::vector<int>& job_region, std::vector<double> LatentRecord::*own) {
    std::vector<float> v;
    for (const LatentRecord* r : samples) {
      const auto& mine = r->*own;
      if (!mine.empty())
        v.insert(v.end(), mine.begin(), mine.end());
      else
        v.insert(v.end(), job_region.begin(), job_region.end());
    }
    return (at::tensor(v, at::kFloat).view({n, -1}) * 100.0).to(device);
  };
  if (u.include_top_region_index_input)
    inputs.top_region_index = regions(g.top_region_index, &LatentRecord::top_region_index);
  if (u.include_bottom_region_index_input)
    inputs.bottom_region_index = regions(g.bottom_region_index, &LatentRecord::bottom_region_index);
  return inputs;
}

at::Tensor LdmTask::diffusion_loss(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u,
                                   const UnetEmbeddingInputs& inputs) {
  const double numel = static_cast<double>(x0.size(2) * x0.size(3) * x0.size(4));
  const auto t = scheduler_->training_timesteps(u, numel);
  const auto xt = scheduler_->add_noise(x0, noise, t);
  const auto target = scheduler_->training_target(x0, noise, t);
  UnetConditioning conditioning;
  conditioning.embedding = inputs;
  const auto prediction = unet_->forward(xt, t.to(x0.device(), at::kFloat), conditioning);
  return diffusion_error(prediction, target, job_.ldm.diffusion_loss).mean();
}

at::Tensor LdmTask::compute_loss(std::size_t, const StepBatch& step_batch, int, std::map<std::string, double>& terms) {
  const at::Tensor& batch = step_batch.images;
  const auto [noise, u] = batch_draws(batch, step_batch.sample_keys);
  // The class-label dropout is NV-Generate's on every step, however the
  // noise is drawn: it is what trains the unconditional branch that
  // classifier-free guidance samples against.
  auto loss = diffusion_loss(batch, noise, u, embedding_inputs(source_->last_records(), step_batch.augmentation_keys));
  terms["train/diffusion_loss"] += loss.item<double>();
  return loss;
}

ValidationResult LdmTask::validate(int rank, int world_size) {
  ValidationResult r;
  std::vector<LatentRecord> val;
  try {
    val = read_latents(job_.ldm.embedding_dir, "val");
  } catch (const DataError&) {
    return r;  // no held-out latents: no validation metric
  }
  const double scale = scale_;
  at::NoGradGuard no_grad;
  unet_->eval();
  r = held_out_loss(val, scale, rank, world_size, device_, "val/diffusion_loss",
                    [&](const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u, std::size_t i) {
                      return diffusion_loss(x0, noise, u, embedding_inputs({&val[i]}, {}));
                    });
  unet_->train();
  return r;
}

void LdmTask::to(const c10::Device& device) {
  device_ = device;
  unet_->to(device);
}

void LdmTask::train_mode(bool on) { unet_->train(on); }

}  // namespace medsynth
