// The survival task (task: survival, seed 004's MACE prediction): a 3D ResNet
// (MONAI layout) maps a volume (+ optional clinical covariates) to a risk
// score, trained with the Cox partial likelihood (Breslow ties) on the shared
// trainer; the rank's batches come from SurvivalBatchSource (optionally
// through MONAI's SmartCache). Validation computes every held-out risk,
// gathers them across ranks and reports Harrell's C-index over the whole set
// as val/c_index (a mean of per-rank C-indices would be wrong), plus
// val/cox_loss, and writes output/risk_scores.csv (id, time, event, risk).
#pragma once

#include <memory>

#include "config/job_spec.hpp"
#include "train/task.hpp"

namespace medsynth {

class SurvivalTask : public Task {
 public:
  explicit SurvivalTask(const JobSpec& job);
  ~SurvivalTask() override;
  std::string name() const override { return "survival"; }
  std::vector<NamedModule> modules() override;
  std::vector<OptimizerGroup> optimizer_groups() override;
  bool group_active(std::size_t group, int) const override { return group == 0; }
  at::Tensor compute_loss(std::size_t group, const at::Tensor& batch, const std::vector<std::uint64_t>& sample_keys, int step,
                          std::map<std::string, double>& terms) override;
  ValidationResult validate(const VolumeDataset&, const std::vector<std::size_t>&, int) override { return {}; }
  std::unique_ptr<BatchSource> make_batch_source(int rank, int world_size) override;
  ValidationResult validate_own(int rank, int world_size, int keep_outputs) override;
  std::int64_t voxels_per_sample() const override;
  void attach_dist(DistContext* dist) override { dist_ = dist; }
  void observe_batch(const Batch& batch) override { labels_ = batch.labels; }
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DistContext* dist_ = nullptr;
  at::Tensor labels_;
};

}  // namespace medsynth
