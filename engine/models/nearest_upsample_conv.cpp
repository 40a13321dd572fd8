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
  const auto y = at::conv3d(x, phase_kernels(weight), bias.defined() ? bias.repeat({8}) : bias, 1, 1);
  // y: [N, 8 O, D + 1, H + 1, W + 1]; phase (a, b, c)'s output voxel
  // (i, j, k) is y[n, (4a + 2b + c) O + o, i + a, j + b, k + c]. That offset
  // is linear in every index, so the whole 2x grid [N, O, D, a, H, b, W, c]
  // is one strided view of y (no two elements shared), and one copy lays it
  // out. Its gradient is one strided write into y's, where slicing out the
  // 8 phases would cost a zero-filled y-sized tensor per phase.
  const auto st = y.strides();
  const std::int64_t s_c = st[1], s_d = st[2], s_h = st[3], s_w = st[4];
  const auto grid = y.as_strided({n, o, d, 2, h, 2, w, 2},
                                 {st[0], s_c, s_d, 4 * o * s_c + s_d, s_h, 2 * o * s_c + s_h, s_w, o * s_c + s_w},
                                 y.storage_offset());
  if (x.suggest_memory_format() == at::MemoryFormat::ChannelsLast3d)
    return grid.permute({0, 2, 3, 4, 5, 6, 7, 1})
        .contiguous()
        .view({n, 2 * d, 2 * h, 2 * w, o})
        .permute({0, 4, 1, 2, 3});
  return grid.contiguous().view({n, o, 2 * d, 2 * h, 2 * w});
}

}  // namespace medsynth
