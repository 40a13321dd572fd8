// The latent diffusion task (task: ldm, stage 3 of the pipeline): the
// diffusion UNet learns to predict the scheduler's target (noise, x0, v or the
// rectified-flow velocity) from noised latents, on the shared trainer (AMP,
// accumulation, DDP, NaN guard, EMA, checkpoints). It trains on the stored
// latents of ldm.embedding_dir through its own batch source and validates by
// the diffusion loss on the held-out latents at fixed timesteps and noise.
// Also built by generate to restore the UNet from a checkpoint.
#pragma once

#include <memory>

#include "config/job_spec.hpp"
#include "diffusion/diffusion_model_unet.hpp"
#include "train/task.hpp"

namespace medsynth {

class DiffusionScheduler;
class LatentBatchLoader;

class LdmTask : public Task {
 public:
  explicit LdmTask(const JobSpec& job);
  ~LdmTask() override;
  std::string name() const override { return "ldm"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t, int) const override { return true; }
  at::Tensor compute_loss(std::size_t group, const at::Tensor& batch, const std::vector<std::uint64_t>& sample_keys, int step,
                          std::map<std::string, double>& terms) override;
  ValidationResult validate(const VolumeDataset&, const std::vector<std::size_t>&, int) override { return {}; }
  std::unique_ptr<BatchSource> make_batch_source(int rank, int world_size) override;
  ValidationResult validate_own(int rank, int world_size, int keep_outputs) override;
  std::int64_t voxels_per_sample() const override { return voxels_per_sample_; }
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

  DiffusionModelUNet& unet() { return unet_; }
  const DiffusionScheduler& scheduler() const { return *scheduler_; }

 private:
  at::Tensor spacing_input(const std::vector<std::array<double, 3>>& spacings) const;
  // The loss of one batch x0 with given noise and uniform numbers u.
  at::Tensor diffusion_loss(const at::Tensor& x0, const at::Tensor& noise, const at::Tensor& u, const at::Tensor& spacing);

  JobSpec job_;
  DiffusionModelUNet unet_{nullptr};
  std::unique_ptr<DiffusionScheduler> scheduler_;
  c10::Device device_{c10::kCPU};
  LatentBatchLoader* source_ = nullptr;  // owned by the trainer; outlives every compute_loss call
  std::int64_t voxels_per_sample_ = 0;
};

// The UNet options of a job: model.diffusion_unet with in/out channels set to
// the autoencoder's latent channels.
DiffusionUnetOptions unet_options(const JobSpec& job);

}  // namespace medsynth
