#include "train/validation_means.hpp"

#include <ATen/ATen.h>

#include "metrics/image_metrics.hpp"

namespace medsynth {

void ValidationMeans::add_image_scores(const at::Tensor& output, const at::Tensor& reference, bool l1) {
  add("val/psnr", psnr(output, reference, 1.0));
  add("val/ssim", ssim3d(output, reference));
  if (l1) add("val/l1", (output - reference).abs().mean().item<double>());
}

void ValidationMeans::write(ValidationResult& result, int items) const {
  result.count = items;
  if (items <= 0) return;
  for (const auto& [metric, sum] : sums_) result.metrics[metric] = sum / items;
}

}  // namespace medsynth
