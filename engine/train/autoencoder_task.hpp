// The MAISI-style KL-autoencoder task: L1/L2 reconstruction + stable KL, and an
// optional 3D patch discriminator (least-squares GAN) switched on at
// model.discriminator.start_step. Validation reconstructs whole held-out
// volumes from the latent mean and reports PSNR and 3D SSIM.
#pragma once

#include <functional>

#include <memory>

#include "config/job_spec.hpp"
#include "train/task.hpp"
#include "train/volume_scoring.hpp"

namespace medsynth {

class AutoencoderTask : public Task, public VolumeScoring {
 public:
  explicit AutoencoderTask(const JobSpec& job);
  ~AutoencoderTask() override;
  std::string name() const override { return "autoencoder"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t group, int step) const override;
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  // Random patches of the job's volumes; validation on whole val volumes.
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  ValidationResult validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items, int keep_outputs) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

  // Whole-volume reconstruction through the latent mean: pads each axis to a
  // multiple of the compression factor, reconstructs window by window
  // (training.val_sliding_window) or at once, then crops back. Input [1,1,Z,Y,X].
  at::Tensor reconstruct_volume(const at::Tensor& image);

 private:
  std::function<at::Tensor(const at::Tensor&)> sample_noise(const std::vector<std::uint64_t>& keys, std::int64_t batch) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace medsynth
