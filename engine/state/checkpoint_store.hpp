// The checkpoints/ folder of a run: the last checkpoint (k_last_checkpoint_file) plus the best k by a
// chosen metric, each named with the metric's value and step
// (`best-val_psnr-31.42-step000400.safetensors`; '/' in metric names becomes
// '_'). Every write is atomic (tensor_file.hpp); a non-finite value is never
// "best". Used by the Trainer (rank 0 only).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "state/tensor_file.hpp"

namespace medsynth {

struct CheckpointStoreOptions {
  std::string directory;
  int keep_best = 3;
  std::string metric = "val/psnr";
  std::string mode = "max";  // max | min
  // Non-empty: best files are <name_prefix>-epoch<EE>-<metric's last part><value>
  // (seed 002's vqgan-patches-epoch05-psnr31.42), never with a '/'.
  std::string name_prefix;
};

struct BestCheckpoint {
  std::string path;
  double value = 0;
  int step = 0;
};

class CheckpointStore {
 public:
  explicit CheckpointStore(CheckpointStoreOptions options);  // scans existing best-* files (resume)
  std::string last_path() const;
  std::string save_last(const TensorFile& file);
  // Writes a best checkpoint when `value` is finite and ranks in the top k;
  // removes the one it pushes out. Returns the path written, if any.
  std::optional<std::string> offer_best(const TensorFile& file, double value, int step, int epoch = 0);
  const std::vector<BestCheckpoint>& best() const { return best_; }

 private:
  bool better(double a, double b) const;
  CheckpointStoreOptions options_;
  std::vector<BestCheckpoint> best_;  // sorted best first
};

}  // namespace medsynth
