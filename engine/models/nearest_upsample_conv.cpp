#include "models/nearest_upsample_conv.hpp"

#include <ATen/ATen.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace medsynth {
namespace {

std::atomic<int>& enabled_flag() {
  static std::atomic<int> flag{[] {
    const char* v = std::getenv("MEDSYNTH_UPSAMPLE_CONV");
    return v != nullptr && std::strcmp(v, "direct") == 0 ? 0 : 1;
  }()};
  return flag;
}

// Sums a 3-tap kernel axis `dim` onto the 2 taps of each output phase and
// puts the phase in a new leading axis: phase 0 takes (w0, w1 + w2) at input
// offsets (-1, 0); phase 1 takes (w0 + w1, w2) at (0, +1).
at::Tensor fold_axis(const at::Tensor& w, std::int64_t dim) {
  const auto t0 = w.select(dim, 0), t1 = w.select(dim, 1), t2 = w.select(dim, 2);
  return at::stack({at::stack({t0, t1 + t2}, dim), at::stack({t0 + t1, t2}, dim)}, 0);
}

// [O, I, 3, 3, 3] -> [8 O, I, 2, 2, 2], phase-major (a, b, c) in the output channels.
at::Tensor phase_kernels(const at::Tensor& weight) {
  // Elementwise sums only, so autocast leaves them in the weight's precision
  // and casts the folded kernel once, at the convolution.
  auto w = fold_axis(weight, 2);  // [a, O, I, p, 3, 3]
  w = fold_axis(w, 4);            // [b, a, O, I, p, q, 3]
  w = fold_axis(w, 6);            // [c, b, a, O, I, p, q, r]
  const auto o = weight.size(0), i = weight.size(1);
  return w.permute({2, 1, 0, 3, 4, 5, 6, 7}).reshape({8 * o, i, 2, 2, 2});
}

}  // namespace

bool nearest_upsample_conv_enabled() { return enabled_flag().load() != 0; }
void set_nearest_upsample_conv_enabled(bool enabled) { enabled_flag().store(enabled ? 1 : 0); }

at::Tensor conv3x3_of_nearest_x2_direct(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const std::vector<double> scale{2.0, 2.0, 2.0};
  return at::conv3d(at::upsample_nearest3d(x, c10::nullopt, at::ArrayRef<double>(scale)), weight, bias, 1, 1);
}

bool nearest_upsample_conv_applies(const at::Tensor& x, const at::Tensor& weight) {
  const bool kernel_3 = weight.dim() == 5 && weight.size(2) == 3 && weight.size(3) == 3 && weight.size(4) == 3;
  return nearest_upsample_conv_enabled() && kernel_3 && x.dim() == 5 && x.size(2) >= 4 && x.size(3) >= 4 &&
         x.size(4) >= 4;
}

at::Tensor conv3x3_of_nearest_x2(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const auto n = x.size(0), o = weight.size(0), d = x.size(2), h = x.size(3), w = x.size(4);
  const auto all = at::conv3d(x, phase_kernels(weight), bias.defined() ? bias.repeat({8}) : bias, 1, 1);
  // all: [N, 8 O, D + 1, H + 1, W + 1]; phase (a, b, c)'s output voxel i
  // sits at i + a along D (and likewise along H, W).
  const auto phases = all.view({n, 2, 2, 2, o, d + 1, h + 1, w + 1});
  std::vector<at::Tensor> parts;
  parts.reserve(8);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c)
        parts.push_back(
            phases.select(1, a).select(1, b).select(1, c).slice(2, a, a + d).slice(3, b, b + h).slice(4, c, c + w));
  // [2a, 2b, 2c, N, O, D, H, W] -> [N, O, D, a, H, b, W, c] -> [N, O, 2D, 2H, 2W]
  auto out = at::stack(parts, 0)
                 .view({2, 2, 2, n, o, d, h, w})
                 .permute({3, 4, 5, 0, 6, 1, 7, 2})
                 .reshape({n, o, 2 * d, 2 * h, 2 * w});
  return out.contiguous(x.suggest_memory_format());
}

}  // namespace medsynth
