#include "models/split_convolution.hpp"

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

namespace medsynth {

namespace {

// Zero padding of `before` and `after` voxels on spatial axis `axis` (0-2) of
// [B, C, D, H, W]; constant_pad_nd lists (left, right) pairs from W back to D.
at::Tensor pad_axis(const at::Tensor& x, int axis, std::int64_t before, std::int64_t after) {
  if (before == 0 && after == 0) return x;
  std::vector<std::int64_t> pad(6, 0);
  pad[2 * (2 - axis)] = before;
  pad[2 * (2 - axis) + 1] = after;
  return at::constant_pad_nd(x, pad, 0.0);
}

std::vector<std::int64_t> padding_except(int axis, std::int64_t padding) {
  std::vector<std::int64_t> p(3, padding);
  p[axis] = 0;
  return p;
}

}  // namespace

SplitConvolutionImpl::SplitConvolutionImpl(const SplitConvolutionOptions& options) : options_(options) {
  conv = register_module(
      "conv", Convolution(ConvolutionOptions{options_.in_channels, options_.out_channels, options_.kernel_size,
                                             options_.stride, options_.padding, true, options_.transposed}));
}

at::Tensor SplitConvolutionImpl::forward(const at::Tensor& x) {
  const auto length = x.size(options_.dim_split + 2);
  if (options_.num_splits <= 1 || length < 2 * options_.num_splits) return conv->forward(x);
  return options_.transposed ? transposed_in_pieces(x) : forward_in_pieces(x);
}

// Output range [o0, o1) of a convolution needs input [o0 s - p, (o1 - 1) s - p + k):
// take what lies inside the volume and zero-pad the rest, then convolve that
// axis without padding.
at::Tensor SplitConvolutionImpl::forward_in_pieces(const at::Tensor& x) const {
  const int axis = options_.dim_split;
  const auto k = options_.kernel_size, s = options_.stride, p = options_.padding;
  const auto length = x.size(axis + 2);
  const auto out_length = (length + 2 * p - k) / s + 1;
  const auto chunk = (out_length + options_.num_splits - 1) / options_.num_splits;
  const std::vector<std::int64_t> stride(3, s), padding = padding_except(axis, p);
  std::vector<at::Tensor> pieces;
  for (std::int64_t o0 = 0; o0 < out_length; o0 += chunk) {
    const auto o1 = std::min(o0 + chunk, out_length);
    const auto lo = o0 * s - p, hi = (o1 - 1) * s - p + k;
    const auto lo_in = std::max<std::int64_t>(lo, 0), hi_in = std::min(hi, length);
    const auto piece = pad_axis(x.narrow(axis + 2, lo_in, hi_in - lo_in), axis, lo_in - lo, hi - hi_in);
    pieces.push_back(at::conv3d(piece, conv->weight(), conv->bias(), stride, padding));
  }
  return at::cat(pieces, axis + 2);
}

// A transposed convolution's output voxel o gathers inputs within
// ceil(k / s) of o / s: each piece of input [i0, i1) is convolved with that
// halo on both sides, and keeps the outputs [i0 s, i1 s) (the last piece
// everything to the end), which its halo computes completely.
at::Tensor SplitConvolutionImpl::transposed_in_pieces(const at::Tensor& x) const {
  const int axis = options_.dim_split;
  const auto k = options_.kernel_size, s = options_.stride, p = options_.padding;
  const auto length = x.size(axis + 2);
  const auto halo = (k + s - 1) / s;
  const auto chunk = (length + options_.num_splits - 1) / options_.num_splits;
  const std::vector<std::int64_t> stride(3, s), padding(3, p), output_padding(3, s - 1);
  std::vector<at::Tensor> pieces;
  for (std::int64_t i0 = 0; i0 < length; i0 += chunk) {
    const auto i1 = std::min(i0 + chunk, length);
    const auto a = std::max<std::int64_t>(i0 - halo, 0), b = std::min(i1 + halo, length);
    const auto out = at::conv_transpose3d(x.narrow(axis + 2, a, b - a), conv->weight(), conv->bias(), stride, padding,
                                          output_padding);
    const auto keep_from = (i0 - a) * s;
    const auto keep_to = i1 == length ? out.size(axis + 2) : (i1 - a) * s;
    pieces.push_back(out.narrow(axis + 2, keep_from, keep_to - keep_from));
  }
  return at::cat(pieces, axis + 2);
}

}  // namespace medsynth
