// The ControlNet task (task: controlnet, the pipeline's training stage;
// NV-Generate's train_controlnet.py): a MAISI ControlNet learns to steer a
// frozen diffusion UNet from label maps. Each step noises a stored latent as
// the UNet was trained, the ControlNet reads the label's binary channels
// (value 5 -> channels 0 and 2) and adds its residuals to the UNet's skips,
// and the loss is the UNet's error on the scheduler's target, optionally
// weighted on the latent voxels under chosen labels, plus NV-Generate's
// region-contrastive terms when ldm.controlnet_region_contrastive is on. Only the ControlNet is
// a module of the task: the UNet is never optimized, synchronised or saved.
#pragma once

#include <memory>

#include "config/job_spec.hpp"
#include "diffusion/latent_files.hpp"
#include "models/controlnet_maisi.hpp"
#include "models/diffusion_model_unet.hpp"
#include "train/task.hpp"

namespace medsynth {

class DiffusionScheduler;
class LatentBatchLoader;

class ControlNetTask : public Task {
 public:
  // The UNet of ldm.diffusion_init and the ControlNet of ldm.controlnet_config,
  // started as a copy of the UNet's encoder (MONAI's copy_model_state: every
  // tensor whose name and shape match; the zero convolutions stay 0, so the
  // untrained ControlNet leaves the UNet unchanged). ldm.controlnet_init
  // replaces those weights through the trainer's init weights.
  // `scale_factor`: the latents' scale (the run's, read by the encode stage).
  ControlNetTask(const JobSpec& job, double scale_factor);
  ~ControlNetTask() override;
  std::string name() const override { return "controlnet"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t, int) const override { return true; }
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  // The stored latents and label maps of ldm.embedding_dir; validation by the
  // steered diffusion loss on the held-out pairs.
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

 private:
  ValidationResult validate(int rank, int world_size);
  // The UNet's prediction for the noisy latent xt steered by labels [B, 1, image axes].
  at::Tensor steered_prediction(const at::Tensor& xt, const at::Tensor& timesteps, const at::Tensor& labels,
                                const UnetEmbeddingInputs& inputs);
  // The loss of latents x0 steered by labels [B, 1, image axes]. With `terms`
  // (training) it adds ldm.controlnet_region_contrastive's terms and logs them;
  // validation (no terms) stays the steered diffusion loss alone.
  at::Tensor steered_loss(const at::Tensor& x0, const at::Tensor& labels, const at::Tensor& noise, const at::Tensor& u,
                          const UnetEmbeddingInputs& inputs, std::map<std::string, double>* terms = nullptr);

  JobSpec job_;
  DiffusionModelUNet unet_{nullptr};
  ControlNetMaisi controlnet_{nullptr};
  std::unique_ptr<DiffusionScheduler> scheduler_;
  c10::Device device_{c10::kCPU};
  LatentBatchLoader* source_ = nullptr;  // owned by the trainer's TrainingData
  std::vector<LatentRecord> val_;        // held-out latents with their label maps (condition)
  double scale_ = 1.0;                   // the run's latent scale
};

}  // namespace medsynth
