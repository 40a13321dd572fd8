// Patch-wise inference over a whole volume (MONAI's sliding_window_inference):
// windows of `roi` voxels placed with `overlap`, the last one flush with the
// border, each passed through `predictor`, and the outputs blended with a
// Gaussian importance map so that window borders do not show. Used by
// validation (a model trained on patches sees patch-sized inputs, keeping
// GroupNorm statistics as in training) and to bound memory on large volumes.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

namespace medsynth {

struct SlidingWindowOptions {
  std::array<std::int64_t, 3> roi{32, 32, 32};  // window (z, y, x) - tensor order
  double overlap = 0.25;                        // [0, 1)
  double sigma_scale = 0.125;                   // Gaussian sigma as a fraction of the window (MONAI)
  int batch_size = 4;                           // windows per predictor call (MONAI sw_batch_size);
                                                // also keeps LibTorch on oneDNN, which it skips for
                                                // small batch-1 fp32 convolutions
};

// Window start positions along one axis of `size` voxels.
std::vector<std::int64_t> window_starts(std::int64_t size, std::int64_t roi, double overlap);

// input [1, C, Z, Y, X]; predictor maps [B, C, rz, ry, rx] to [B, C', rz, ry, rx].
// An axis smaller than its window is padded (with the input's minimum) and cropped back.
at::Tensor sliding_window_inference(const at::Tensor& input, const SlidingWindowOptions& options,
                                    const std::function<at::Tensor(const at::Tensor&)>& predictor);

}  // namespace medsynth
