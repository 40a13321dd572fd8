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
  // The Cox loss of the batch's risks against its labels (time, event, covariates).
  at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                          std::map<std::string, double>& terms) override;
  // This rank's labelled volumes; validation gathers every rank's risks (shard.dist).
  std::unique_ptr<TrainingData> make_data(const RunShard& shard) override;
  void to(const c10::Device& device) override;
  void train_mode(bool on) override;

 private:
  ValidationResult validate(const RunShard& shard);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace medsynth
