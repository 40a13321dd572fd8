// A 3^3 convolution of a nearest-neighbour x2 upsampling, in a quarter of the
// work (issue 51, docs/performance.md "Against MONAI on a CPU"). MONAI's AutoencoderKL
// and DiffusionModelUNet upsample by repeating each voxel 2x2x2 and then
// convolving the 8x larger map with a 3^3 kernel. Along one axis, the output
// at 2i + a sees the upsampled voxels 2i + a - 1 .. 2i + a + 1, which are only
// two distinct input voxels: (i - 1, i) for a = 0, (i, i + 1) for a = 1. So
// each of the 8 output phases (a, b, c) is a 2^3 convolution of the input
// itself with the 3^3 kernel's taps summed onto those 2^3 positions: 8 taps
// per output voxel instead of 27, with no 8x map in between. All 8 phases run
// as one convolution with 8x the output channels (padding 1 gives every
// phase's window), then interleave into the 2x grid.
//
// The same function in exact arithmetic; the sums are in a different order
// (and, under bf16 autocast, the summed taps are rounded once instead of each
// tap): nearest_upsample_conv_test.cpp holds the output and all three
// gradients to the direct computation. The zero padding of the direct
// computation at the borders is the zero padding of the input here.
#pragma once

#include <ATen/core/Tensor.h>

namespace medsynth {

// conv3d(upsample_nearest3d(x, 2), weight, bias, stride 1, padding 1) for a
// [O, I, 3, 3, 3] weight and an [N, I, D, H, W] input; bias may be undefined.
at::Tensor conv3x3_of_nearest_x2(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// Whether the blocks take conv3x3_of_nearest_x2 for x: switched on
// (nearest_upsample_conv_enabled), a 3^3 kernel, and a map of at least 4
// voxels along every axis (smaller ones gain nothing, and there bf16
// convolutions with a kernel as large as the map go wrong: the blocks' own
// path, conv3d_forward.hpp, handles those).
bool nearest_upsample_conv_applies(const at::Tensor& x, const at::Tensor& weight);

// The direct computation: upsample, then the 3^3 convolution (the tests' reference).
at::Tensor conv3x3_of_nearest_x2_direct(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// On unless MEDSYNTH_UPSAMPLE_CONV=direct (read once), or set here (the
// benchmarks' A/B switch).
bool nearest_upsample_conv_enabled();
void set_nearest_upsample_conv_enabled(bool enabled);

}  // namespace medsynth
