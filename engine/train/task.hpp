// A task plugs a model family into the one Trainer (trainer.hpp): the trainer
// owns the loop, AMP, accumulation, clipping, the NaN guard, checkpoints,
// events and (later) distributed sync; a task owns its modules, its losses and
// its validation. No task writes its own loop.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/nn/module.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/batch_source.hpp"
#include "state/trained_modules.hpp"
#include "volume/volume.hpp"

namespace medsynth {

class DistContext;
class VolumeDataset;

// The first `max_volumes` (0: all) dataset indices of `dataset_size`, the share
// of `rank` among `world_size` (round robin, like the sampler without shuffle).
std::vector<std::size_t> validation_items(std::size_t dataset_size, int max_volumes, int rank = 0, int world_size = 1);

// The optimizer group `group` over every parameter of `module`, named for the
// checkpoint as `prefix.<parameter>` (the module's NamedModule name).
OptimizerGroup optimizer_group(const std::string& group, const std::string& prefix, torch::nn::Module& module);

struct ValidationResult {
  std::map<std::string, double> metrics;       // "val/psnr", "val/ssim", ...: means over the items
  int count = 0;                               // items validated (weights the mean when ranks combine)
  std::vector<std::pair<std::string, Volume>> outputs;  // (file stem, volume) to write
  // (file name, text) written atomically into output/ by rank 0 at every
  // validation, e.g. the survival task's per-patient risk scores (CSV).
  std::vector<std::pair<std::string, std::string>> files;
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
  // `sample_keys` (one per sample, may be empty) seed per-sample noise.
  virtual at::Tensor compute_loss(std::size_t group, const at::Tensor& batch, const std::vector<std::uint64_t>& sample_keys, int step,
                                  std::map<std::string, double>& terms) = 0;
  // Validation on the held-out volumes `items` (dataset indices: the trainer
  // splits them among ranks); the first `keep_outputs` are returned for writing.
  virtual ValidationResult validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items, int keep_outputs) = 0;
  virtual void to(const c10::Device& device) = 0;
  virtual void train_mode(bool on) = 0;
  // The name of the main metric's loss for logs ("train/loss" is always the total of group 0).

  // A task that trains on something other than patches of the job's image
  // volumes (the LDM task: stored latents) returns its own batch source; the
  // trainer then builds no VolumeDataset and validates with validate_own().
  virtual std::unique_ptr<BatchSource> make_batch_source(int /*rank*/, int /*world_size*/) { return nullptr; }
  virtual ValidationResult validate_own(int /*rank*/, int /*world_size*/, int /*keep_outputs*/) { return {}; }
  // Voxels of one training sample, for the throughput metric (0: the job's patch size).
  virtual std::int64_t voxels_per_sample() const { return 0; }
  // The process group of a distributed run (null: one process), given before
  // make_batch_source; a task whose state is not plain gradients (the VQ-GAN's
  // EMA codebook) or whose metric is not a mean (the C-index) reduces with it.
  virtual void attach_dist(DistContext* /*dist*/) {}
  // The batch whose images the next compute_loss calls receive, for a task
  // that needs more than the images (the survival task's labels).
  virtual void observe_batch(const Batch& /*batch*/) {}
};

}  // namespace medsynth
