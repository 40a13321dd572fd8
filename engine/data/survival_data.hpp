// The data of the survival task (seed 004): volumes with survival labels
// (survival_labels.hpp), resized to the network's input size, and the batch
// source that serves each rank its share - through MONAI's SmartCache
// (smart_cache.hpp) when data.smart_cache is on, so an epoch trains on the
// cache window and the next window loads in the background.
#pragma once

#include <ATen/core/Tensor.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/batch_source.hpp"
#include "data/smart_cache.hpp"
#include "data/survival_labels.hpp"

namespace medsynth {

class VolumeDataset;

// One split's volumes and labels. Simulated: phantoms with a lesion whose
// size sets the hazard; csv: the manifest's time/event/covariate columns.
class SurvivalData {
 public:
  SurvivalData(const JobSpec& job, const std::string& split);
  ~SurvivalData();
  std::size_t size() const;
  const std::string& id(std::size_t i) const;
  const SurvivalLabel& label(std::size_t i) const { return labels_[i]; }
  // [1, Z, Y, X] float in [0, 1], resized to data.patch_size.
  at::Tensor image(std::size_t i) const;
  std::size_t loads() const;  // image() calls so far (benchmarks, tests)

 private:
  JobSpec job_;
  std::unique_ptr<VolumeDataset> volumes_;
  std::vector<SurvivalLabel> labels_;
  std::vector<SimulatedLesion> lesions_;  // simulated source only
  mutable std::atomic<std::size_t> loads_{0};
};

// Covariate column names from data.covariates ("age, sex" -> {"age", "sex"}).
std::vector<std::string> covariate_columns(const std::string& text);

struct SurvivalSourceOptions {
  int batch_size = 8;
  bool smart_cache = false;
  SmartCacheOptions cache;
  std::uint64_t base_seed = 42;
  int rank = 0;
  int world_size = 1;
};

// Rank r trains on items r, r + world, ... (floor(N / world) of them, so every
// rank runs the same number of batches). Batch::labels holds per sample
// [time, event, covariates...].
class SurvivalBatchSource : public BatchSource {
 public:
  SurvivalBatchSource(const SurvivalData& data, SurvivalSourceOptions options);
  void start_epoch(int epoch, int skip_batches = 0) override;
  std::optional<Batch> next() override;
  int batches_per_epoch() const override;
  std::size_t item_count() const override { return items_.size(); }
  const SmartCache* cache() const { return cache_.get(); }

 private:
  const SurvivalData& data_;
  SurvivalSourceOptions options_;
  std::vector<std::size_t> items_;
  std::unique_ptr<SmartCache> cache_;
  std::vector<std::size_t> epoch_items_;
  int batch_index_ = 0;
};

}  // namespace medsynth
