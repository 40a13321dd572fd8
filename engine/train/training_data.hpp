// What a task trains on and validates with in one run, as the task hands it
// to the trainer (Task::make_data): this rank's batches, this rank's share of
// validation, and the counts the run reports. The task builds it for its
// rank; the trainer's session owns it and drops it (loader threads first)
// before a failure is reported. Implementations: patch_training_data.hpp
// (patches of the job's volumes) and own_batch_data.hpp (a task's own source).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "data/batch_source.hpp"
#include "train/validation_images.hpp"
#include "volume/volume.hpp"

namespace medsynth {

class DistContext;

// The first `max_volumes` (0: all) dataset indices of `dataset_size`, the share
// of `rank` among `world_size` (round robin, like the sampler without shuffle).
std::vector<std::size_t> validation_items(std::size_t dataset_size, int max_volumes, int rank = 0, int world_size = 1);

struct ValidationResult {
  std::map<std::string, double> metrics;                // "val/psnr", "val/ssim", ...: means over the items
  int count = 0;                                        // items validated (weights the mean when ranks combine)
  std::vector<std::pair<std::string, Volume>> outputs;  // (file stem, volume) to write
  // (file name, text) written atomically into output/ by rank 0 at every
  // validation, e.g. the survival task's per-patient risk scores (CSV).
  std::vector<std::pair<std::string, std::string>> files;
  // This rank's first item, input beside output (validation_images.hpp): on
  // rank 0 dataset item 0, the same volume at every validation. Empty for a
  // task without an image output (ldm, controlnet: latents, judged by loss;
  // survival: a risk score).
  ValidationImages images;
};

// What a task keeps of the n-th item it validated on this rank (n from 0):
// the first one's images, and `output` (a [.., Z, Y, X] tensor on input's grid)
// as a volume named `stem` while n < keep_outputs.
void keep_validation_item(ValidationResult& result, std::size_t n, int keep_outputs, const std::string& item,
                          const Volume& input, const at::Tensor& output, std::string stem);

// This process's place in a run; `dist` is the process group of a
// distributed run (null: one process), for a task whose state is not plain
// gradients (the VQ-GAN's EMA codebook) or whose metric is not a mean (the C-index).
struct RunShard {
  int rank = 0;
  int world_size = 1;
  DistContext* dist = nullptr;
};

// What the run_started event and the first log line say about the data.
struct DataSummary {
  std::size_t train_items = 0;
  std::size_t val_items = 0;
  std::string text;  // "8 train / 2 val volumes, "
};

class TrainingData {
 public:
  virtual ~TrainingData() = default;
  virtual BatchSource& batches() = 0;
  // This rank's share of validation with the weights as they are now (the
  // trainer swaps in the averaged ones); the first `keep_outputs` outputs are kept.
  virtual ValidationResult validate(int keep_outputs) = 0;
  // Voxels of one training sample, for the throughput metric.
  virtual std::int64_t voxels_per_sample() const = 0;
  virtual DataSummary summary() const = 0;
};

}  // namespace medsynth
