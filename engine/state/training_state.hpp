// Everything a checkpoint must hold for a bit-identical resume, and the code
// that moves it between the live objects and a TensorFile:
//   model.<module>.<param/buffer>        weights (by name; MONAI names after the prefix)
//   optim.<group>.<param>.exp_avg(_sq)   AdamW moments
//   rng.cpu / rng.cuda<N>                generator states
//   __metadata__: format, task, model_hash, config_hash, job (resolved YAML) and
//   progress (JSON: step, epoch, batch_in_epoch, lr_factor, scaler, adam steps).
// Used by the Trainer, `medsynth-engine eval` and generation (diffusion/),
// which hand it a task's modules (state/trained_modules.hpp).
#pragma once

#include <torch/optim/adamw.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "state/tensor_file.hpp"
#include "state/trained_modules.hpp"

namespace medsynth {

inline constexpr const char* k_checkpoint_format = "medsynth-checkpoint-v1";

struct TrainingProgress {
  int step = 0;             // optimizer steps done
  int epoch = 0;            // current epoch
  int batch_in_epoch = 0;   // micro-batches of `epoch` already consumed
  double lr_factor = 1.0;   // product of NaN-guard rollbacks
  double scaler_scale = 1.0;
  int scaler_growth_tracker = 0;
  int rollbacks = 0;
  std::map<std::string, double> last_metrics;
};

struct CheckpointIdentity {
  std::string task;
  std::string model_hash;
  std::string config_hash;
  std::string job_yaml;
};

struct OptimizerSlot {
  OptimizerGroup group;
  std::unique_ptr<torch::optim::AdamW> optimizer;
};

class EmaWeights;

// `ema` may be null (no averaging).
TensorFile capture_training_state(const std::vector<NamedModule>& modules, const std::vector<OptimizerSlot>& optimizers,
                                  const TrainingProgress& progress, const CheckpointIdentity& identity,
                                  const EmaWeights* ema = nullptr);

// Reads the identity from a checkpoint and refuses a foreign one: throws
// UsageError naming `path` when the format, task or model hash differ.
CheckpointIdentity check_checkpoint_identity(const TensorFile& file, const std::string& path,
                                             const CheckpointIdentity& expected);

// Loads weights only (eval): the averaged ("ema.") weights when the file has
// them and `prefer_ema`, else the live ones. Throws UsageError naming
// missing/unexpected/mis-shaped tensors.
void restore_weights(const std::vector<NamedModule>& modules, const TensorFile& file, const std::string& path,
                     bool prefer_ema = false);
// Loads weights, optimizer moments, RNG states and returns the progress.
TrainingProgress restore_training_state(const std::vector<NamedModule>& modules, std::vector<OptimizerSlot>& optimizers,
                                        const TensorFile& file, const std::string& path, EmaWeights* ema = nullptr);

}  // namespace medsynth
