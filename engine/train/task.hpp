// A task plugs a model family into the one Trainer (trainer.hpp): the trainer
// owns the loop, AMP, accumulation, clipping, the NaN guard, checkpoints,
// events and distributed sync; a task owns its modules, its losses, the data
// it trains on and its validation (training_data.hpp). No task writes its own
// loop. Tasks are built through the task registry (task_registry.hpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/nn/module.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "state/trained_modules.hpp"
#include "train/training_data.hpp"

namespace medsynth {

// The optimizer group `group` over every parameter of `module`, named for the
// checkpoint as `prefix.<parameter>` (the module's NamedModule name).
OptimizerGroup optimizer_group(const std::string& group, const std::string& prefix, torch::nn::Module& module);

// One micro-batch as compute_loss sees it.
struct StepBatch {
  const at::Tensor& images;                       // on the training device, in its memory format
  const std::vector<std::uint64_t>& sample_keys;  // one per sample, seed per-sample noise; empty: the rank's generator
  const at::Tensor& labels;  // per-sample targets on the CPU (Batch::labels); undefined for image-only tasks
  // One per sample whatever training.per_sample_noise says: they seed the
  // task's own augmentations (MAISI's class-label dropout), which NV-Generate
  // applies on every step; empty only when the batch source has no keys.
  const std::vector<std::uint64_t>& augmentation_keys;
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual std::vector<NamedModule> modules() = 0;
  virtual std::vector<OptimizerGroup> optimizer_groups() = 0;
  virtual bool group_active(std::size_t group, int step) const = 0;
  // Forward and loss of one micro-batch for one group; `terms` receives named
  // loss parts for logging ("train/recon_loss", ...). Groups are called in
  // order for the same batch, so later groups may reuse earlier outputs.
  virtual at::Tensor compute_loss(std::size_t group, const StepBatch& batch, int step,
                                  std::map<std::string, double>& terms) = 0;
  // What the task trains on and validates with in this run, for this rank
  // (training_data.hpp); called once, before the task is moved to its device.
  // A task that keeps state across ranks other than gradients takes the
  // process group from `shard` here.
  virtual std::unique_ptr<TrainingData> make_data(const RunShard& shard) = 0;
  virtual void to(const c10::Device& device) = 0;
  virtual void train_mode(bool on) = 0;
};

}  // namespace medsynth
