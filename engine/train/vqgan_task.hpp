// The patch-based 3D VQ-GAN task (task: vqgan, seed 002, medicaldiffusion's
// VQ-GAN): trains on grid patches of large volumes (each rank its own
// volumes, patch_batch_source.hpp), with L1/L2 reconstruction + the
// quantizer's commitment (and codebook) loss + loss.perceptual_weight x
// MONAI's perceptual loss (metrics/perceptual_loss.hpp, from the user's
// weights), and two PatchGAN discriminators that join at
// model.vqgan.discriminator_iter_start: the 3D one on whole patches
// (video_gan_weight) and a 2D one on a random axial slice per patch
// (image_gan_weight), each with optional feature matching (gan_feat_weight).
// Validation decodes every grid patch of each held-out volume, stitches them
// back (Gaussian blending where patches overlap) and reports PSNR and SSIM on
// the whole volume, plus the codebook perplexity.
#pragma once

#include <memory>

#include "config/job_spec.hpp"
#include "data/patch_grid.hpp"
#include "train/task.hpp"
#include "train/volume_scoring.hpp"

namespace medsynth {

class PatchGanTraining;

class VqganTask : public Task, public VolumeScoring {
 public:
  explicit VqganTask(const JobSpec& job);
  ~VqganTask() override;
  std::string name() const override { return "vqgan"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t group, int step) const override;
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  // Grid patches of this rank's train volumes; with more than one rank the
  // codebook's EMA statistics are summed over them (shard.dist).
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  // Whole volumes of `dataset` (the val split's, or eval's --data).
  ValidationResult validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items,
                            int keep_outputs) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

  // The whole volume [1, 1, Z, Y, X] through the grid patches, stitched.
  at::Tensor reconstruct_volume(const at::Tensor& image);

 private:
  // The enabled discriminators, in optimizer-group order (group 1, 2, ...).
  std::vector<PatchGanTraining*> discriminators() const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The patch grid options of a job: data.patch_size / data.patch_stride in tensor order.
PatchGridOptions patch_grid_options(const DataSpec& data);

}  // namespace medsynth
