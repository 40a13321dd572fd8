// The latent diffusion task (task: ldm, stage 3 of the pipeline): the
// diffusion UNet learns to predict the scheduler's target (noise, x0, v or the
// rectified-flow velocity) from noised latents, on the shared trainer (AMP,
// accumulation, DDP, NaN guard, EMA, checkpoints). It trains on the stored
// latents of ldm.embedding_dir through its own batch source and validates by
// the diffusion loss on the held-out latents at fixed timesteps and noise.
// Also built by generate to restore the UNet from a checkpoint.
#pragma once

#include <functional>
#include <memory>

#include "config/job_spec.hpp"
#include "diffusion/latent_files.hpp"
#include "models/diffusion_model_unet.hpp"
#include "train/task.hpp"

namespace medsynth {

class DiffusionScheduler;
class LatentBatchLoader;

class LdmTask : public Task {
 public:
  // `scale_factor`: the latents' scale (the run's, read by the encode stage).
  LdmTask(const JobSpec& job, double scale_factor);
  ~LdmTask() override;
  std::string name() const override { return "ldm"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t, int) const override { return true; }
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  // The stored latents of ldm.embedding_dir (this rank's share); validation
  // by the diffusion loss on the held-out latents.
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

  DiffusionModelUNet& unet() { return unet_; }
  const DiffusionScheduler& scheduler() const { return *scheduler_; }

 private:
  ValidationResult validate(int rank, int world_size);
  // The UNet's conditioning inputs for samples of these spacings and keys
  // (the keys draw NV-Generate's modality-label augmentation; none: the
  // labels as given, as validation uses them).
  UnetEmbeddingInputs embedding_inputs(const std::vector<const LatentRecord*>& samples,
                                       const std::vector<std::uint64_t>& keys) const;
  // The loss of one batch x0 with given noise and uniform numbers u.
  at::Tensor diffusion_loss(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u,
                            const UnetEmbeddingInputs& inputs);

  JobSpec job_;
  double scale_ = 1.0;  // the run's latent scale
  DiffusionModelUNet unet_{nullptr};
  std::unique_ptr<DiffusionScheduler> scheduler_;
  c10::Device device_{c10::kCPU};
  LatentBatchLoader* source_ = nullptr;  // owned by the trainer's TrainingData; outlives every compute_loss call
};

// A sample's uniform number (its timestep) and Gaussian noise of `shape`
// from its key: the same whatever the ranks or batch size.
std::pair<double, at::Tensor> keyed_diffusion_draws(std::uint64_t key, at::IntArrayRef shape);

// A training batch's noise and uniform numbers (its timesteps): keyed on
// each sample when `keys` are given (training.per_sample_noise), else from
// the rank's generator.
std::pair<at::Tensor, at::Tensor> batch_draws(const at::Tensor& batch, const std::vector<std::uint64_t>& keys);

// The held-out loss of a diffusion network, this rank's share of `val`: each
// latent (times `scale`) at five fixed timesteps (u = 0.1 .. 0.9) with noise
// keyed on the latent, so the metric moves only when the network does.
// `loss(x0, noise, u, index into val)` is one evaluation; `metric` names the mean.
using HeldOutLoss =
    std::function<at::Tensor(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u, std::size_t item)>;
ValidationResult held_out_loss(const std::vector<LatentRecord>& val, double scale, int rank, int world_size,
                               const c10::Device& device, const std::string& metric, const HeldOutLoss& loss);

// The UNet's conditioning inputs for these latents: their image spacing x
// 100, the class label generate.modality (with NV-Generate's augmentation
// drawn from each sample's key when `keys` are given) and the body regions x
// 100 (a latent's own when it has them, else generate.*_region_index), each
// where model.diffusion_unet takes it.
UnetEmbeddingInputs unet_embedding_inputs(const JobSpec& job, const std::vector<const LatentRecord*>& samples,
                                          const std::vector<std::uint64_t>& keys, const c10::Device& device);

// NV-Generate's augment_modality_label, drawn from a sample's key: with
// probability 0.1 a CT variant (2-7) becomes plain CT (1) and an MR contrast
// (>= 9) plain MR (8); then with probability 0.1 the label becomes 0, the
// unconditional class that classifier-free guidance samples against.
inline constexpr double k_modality_augmentation = 0.1;
std::int64_t augmented_modality(int modality, std::uint64_t key);

// The UNet options of a job: model.diffusion_unet with in/out channels set to
// the autoencoder's latent channels.
DiffusionUnetOptions unet_options(const JobSpec& job);

}  // namespace medsynth
