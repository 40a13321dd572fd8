// Intensity checks of generated CT against a reference set: the HU
// histograms' distance, and the share of voxels outside the modality's valid
// range (MAISI's quality check looks at the same numbers per organ:
// eval/label_hu_check.hpp, where label maps lie beside the volumes).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace medsynth {

struct HuHistogramOptions {
  double lo = -1024.0, hi = 3071.0;  // CT's valid range; values outside count in the end bins
  double bin_width = 10.0;           // HU
  void validate() const;             // UsageError naming the field
};

// Normalised histogram (sums to 1) of every voxel of `volumes` pooled.
at::Tensor hu_histogram(const std::vector<at::Tensor>& volumes, const HuHistogramOptions& options);

// Earth mover's (Wasserstein-1) distance between two histograms of the same
// bins, in HU: how far, on average, voxel intensities must move to turn one
// distribution into the other (a uniform shift of s HU gives s).
double histogram_w1_hu(const at::Tensor& a, const at::Tensor& b, const HuHistogramOptions& options);

// Share of voxels of `volumes` outside [lo, hi] (NaN and inf count as outside).
double fraction_outside(const std::vector<at::Tensor>& volumes, double lo, double hi);

}  // namespace medsynth
