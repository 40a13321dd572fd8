#include "data/sliding_window_inference.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "data/patch_grid.hpp"

namespace medsynth {

std::vector<std::int64_t> window_starts(std::int64_t size, std::int64_t roi, double overlap) {
  if (size <= roi) return {0};
  const std::int64_t stride = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(roi * (1.0 - overlap))));
  std::vector<std::int64_t> starts;
  for (std::int64_t s = 0; s + roi < size; s += stride) starts.push_back(s);
  starts.push_back(size - roi);  // the last window is flush with the border
  return starts;
}


at::Tensor sliding_window_inference(const at::Tensor& input, const SlidingWindowOptions& options,
                                    const std::function<at::Tensor(const at::Tensor&)>& predictor) {
  if (input.dim() != 5 || input.size(0) != 1)
    throw UsageError("sliding_window_inference: expected an input [1, C, Z, Y, X], got " + std::to_string(input.dim()) + " dims");
  if (!(options.overlap >= 0 && options.overlap < 1)) throw UsageError("sliding_window_inference: overlap must be in [0, 1)");
  // Pad axes shorter than the window.
  std::array<std::int64_t, 3> size{input.size(2), input.size(3), input.size(4)};
  std::vector<std::int64_t> pad;
  for (int d = 2; d >= 0; --d) {
    pad.push_back(0);
    pad.push_back(std::max<std::int64_t>(0, options.roi[d] - size[d]));
  }
  at::Tensor x = at::constant_pad_nd(input, pad, input.min().item<double>());
  std::array<std::int64_t, 3> padded{x.size(2), x.size(3), x.size(4)};

  const at::Tensor weight = gaussian_importance(options.roi, options.sigma_scale, x.options());
  std::vector<std::array<std::int64_t, 3>> starts;
  for (std::int64_t z : window_starts(padded[0], options.roi[0], options.overlap))
    for (std::int64_t y : window_starts(padded[1], options.roi[1], options.overlap))
      for (std::int64_t w : window_starts(padded[2], options.roi[2], options.overlap)) starts.push_back({z, y, w});
  auto region = [&](const at::Tensor& t, int first_dim, const std::array<std::int64_t, 3>& s) {
    return t.slice(first_dim, s[0], s[0] + options.roi[0])
        .slice(first_dim + 1, s[1], s[1] + options.roi[1])
        .slice(first_dim + 2, s[2], s[2] + options.roi[2]);
  };
  at::Tensor out, norm = at::zeros(padded, x.options().dtype(at::kFloat));
  const std::size_t batch = static_cast<std::size_t>(std::max(1, options.batch_size));
  for (std::size_t first = 0; first < starts.size(); first += batch) {
    const std::size_t last = std::min(starts.size(), first + batch);
    std::vector<at::Tensor> windows;
    for (std::size_t i = first; i < last; ++i) windows.push_back(region(x, 2, starts[i]));
    at::Tensor pred = predictor(at::cat(windows, 0)).to(at::kFloat);
    if (!out.defined()) out = at::zeros({1, pred.size(1), padded[0], padded[1], padded[2]}, x.options().dtype(at::kFloat));
    for (std::size_t i = first; i < last; ++i) {
      region(out, 2, starts[i]).add_(pred.slice(0, i - first, i - first + 1) * weight);
      region(norm, 0, starts[i]).add_(weight);
    }
  }
  out = out / norm;
  return out.slice(2, 0, size[0]).slice(3, 0, size[1]).slice(4, 0, size[2]);
}

}  // namespace medsynth
