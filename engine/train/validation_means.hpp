// The means a task's validation reports over its items ("val/psnr", ...):
// the whole-volume tasks (autoencoder, vqgan, translation) score every
// output against its reference the same way and report the means with the
// item count, which weights them when the ranks' results are combined.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>

#include "train/training_data.hpp"

namespace medsynth {

class ValidationMeans {
 public:
  void add(const std::string& metric, double value) { sums_[metric] += value; }
  // val/psnr and val/ssim (and val/l1 when `l1`) of an output in [0, 1] against its reference.
  void add_image_scores(const at::Tensor& output, const at::Tensor& reference, bool l1 = true);
  // result.count = items, and each metric's mean over them (none when items is 0).
  void write(ValidationResult& result, int items) const;

 private:
  std::map<std::string, double> sums_;
};

}  // namespace medsynth
