// Does a generated volume copy a training case? For each generated volume,
// its nearest training case by MS-SSIM distance (1 - MS-SSIM) and, when an
// encoder is given (the run's autoencoder), by the L2 distance between
// latent means (per latent voxel). Each distance is divided by the median
// nearest-neighbour distance of the training cases among themselves: a ratio
// near 1 is as close as two different training cases are; a copy is 0. A
// sample whose ratio (by either measure) is below the user's threshold is
// flagged. Volumes are [1, 1, Z, Y, X] on one grid, intensities in [0, 1].
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

#include "eval/parallel_map.hpp"
#include "metrics/image_metrics.hpp"

namespace medsynth {

struct MemorizationOptions {
  double threshold = 0.2;  // flag below this ratio
  MsSsimOptions ms_ssim;
  void validate() const;   // UsageError naming the field
};

struct NearestTrainingCase {
  std::string generated;
  std::string nearest_by_ms_ssim;
  double ms_ssim_distance = 0.0, ms_ssim_ratio = 0.0;
  std::string nearest_by_latent;  // empty without an encoder
  double latent_distance = 0.0, latent_ratio = 0.0;
  bool flagged = false;
};

struct MemorizationReport {
  double training_median_ms_ssim_distance = 0.0;
  double training_median_latent_distance = 0.0;  // 0 without an encoder
  std::vector<NearestTrainingCase> cases;
};

using LatentEncoder = std::function<at::Tensor(const at::Tensor&)>;

// At least 2 training cases (the baseline needs a neighbour). `encoder` may be empty.
MemorizationReport audit_memorization(const std::vector<at::Tensor>& generated, const std::vector<std::string>& generated_names,
                                      const std::vector<at::Tensor>& training, const std::vector<std::string>& training_names,
                                      const MemorizationOptions& options, const LatentEncoder& encoder = {},
                                      const ParallelMap& map = ParallelMap());

}  // namespace medsynth
