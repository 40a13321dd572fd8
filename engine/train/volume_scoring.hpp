// A task whose model reconstructs whole image volumes (autoencoder, vqgan;
// the catalog's reconstructs_volumes): its validation scores reconstructions
// of held-out volumes, and `medsynth-engine eval` scores any volumes the same
// way through this interface, which it finds on the Task it built.
#pragma once

#include <cstddef>
#include <vector>

#include "train/training_data.hpp"

namespace medsynth {

class VolumeDataset;

class VolumeScoring {
 public:
  virtual ~VolumeScoring() = default;
  // Metrics over `items` of `dataset` (PSNR, SSIM, ...); the first
  // `keep_outputs` reconstructions are returned as outputs.
  virtual ValidationResult validate(const VolumeDataset& dataset, const std::vector<std::size_t>& items,
                                    int keep_outputs) = 0;
};

}  // namespace medsynth
