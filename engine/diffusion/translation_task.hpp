// Image-to-image diffusion (task: translation), the task of the Fast-DDPM 3D
// BraTS seed: the diffusion UNet denoises one contrast (data.target) in image
// space with the case's other contrasts (data.channels) concatenated to its
// input, so sampling from noise translates T1/T1c/T2 into FLAIR. Trains on
// the shared trainer (DDP, accumulation, AMP, EMA) on random patches cut at
// one place in every contrast; validates by translating whole held-out cases
// with the job's sampler (Fast-DDPM: the same 10 timesteps it trained on) and
// scoring PSNR/SSIM against the real contrast. docs/translation.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "models/diffusion_model_unet.hpp"
#include "train/case_training_data.hpp"
#include "train/task.hpp"

namespace medsynth {

class DiffusionScheduler;

class TranslationTask : public Task {
 public:
  // ConfigError naming data.target when it is one of data.channels (validate_job checks the rest).
  explicit TranslationTask(const JobSpec& job);
  ~TranslationTask() override;
  std::string name() const override { return "translation"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t, int) const override { return true; }
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

  // The target contrast of one case from its condition contrasts
  // ([1, C, Z, Y, X], normalised to [0, 1]), sampled from noise keyed on
  // `key`; [1, 1, Z, Y, X] in [0, 1] on the CPU. Any size: padded to what the UNet takes.
  at::Tensor translate(const at::Tensor& conditions, std::uint64_t key);

  // Validation of held-out cases (channels then target): val/psnr, val/ssim
  // and val/l1 of the translated contrast; outputs named as the case would name it.
  ValidationResult validate(const ContrastDatasets& cases, const std::vector<std::size_t>& items, int keep_outputs);

 private:
  JobSpec job_;
  DiffusionModelUNet unet_{nullptr};
  std::unique_ptr<DiffusionScheduler> scheduler_;
  c10::Device device_{c10::kCPU};
};

// The UNet of a translation job: model.diffusion_unet taking the condition
// contrasts and the noisy target (channels + 1) and giving the target (1).
DiffusionUnetOptions translation_unet_options(const JobSpec& job);

// Every case of job.data (this rank's share) translated into `output_dir`/<case>/<stem>.nii.gz
// (translated_file_stem); `on_written(path)` after each file. Returns the paths written.
// Before any is translated, every rank checks every case's output: one that
// is an input of a case (--output-dir the case folder: the real FLAIR) is
// refused always, one that exists unless `overwrite` (UsageError naming it;
// issue 50 item 9).
struct TranslateOptions {
  std::string output_dir;
  int rank = 0;
  int world_size = 1;
  bool overwrite = false;  // generate --overwrite: replace earlier translations
  std::function<void(const std::string& path)> on_written;
};
std::vector<std::string> translate_cases(const JobSpec& job, TranslationTask& task, const TranslateOptions& options);

}  // namespace medsynth
