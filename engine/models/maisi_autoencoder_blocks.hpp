// The blocks of MAISI's autoencoder (MONAI 1.6.1
// monai.apps.generation.maisi.networks.autoencoderkl_maisi), with MONAI's
// child names so that NV-Generate's released state dicts map name for name:
//   MaisiGroupNorm    = MaisiGroupNorm3D  weight, bias
//   MaisiResBlock     = MaisiResBlock     norm1, conv1.conv.conv, norm2, conv2.conv.conv, nin_shortcut.conv.conv
//   MaisiDownsample   = MaisiDownsample   conv.conv.conv (pad (0, 1) per axis, 3^3 stride 2)
//   MaisiUpsample     = MaisiUpsample     conv.conv.conv (trilinear x2 then 3^3, or a 3^3 stride-2 transposed conv)
// They differ from the plain AutoencoderKL blocks (autoencoder_blocks.hpp) in
// those names, in trilinear (not nearest) upsampling, in the group norm
// computed in float32 whatever the input's type, and in convolutions that
// may run in pieces (split_convolution.hpp). Assembled by autoencoder_coders.cpp
// when AutoencoderKLOptions::maisi is set.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "models/split_convolution.hpp"

namespace medsynth {

// How the MAISI blocks run: split convolutions and the float16 norm output.
struct MaisiBlockOptions {
  int num_splits = 1;
  int dim_split = 0;
  bool norm_float16 = false;
};

// GroupNorm computed in float32. With norm_float16 its output is rounded to
// float16 before the affine step (MAISI halves the memory of every norm this
// way). The result stays float16 only where autocast is on for the input's
// device (as NV-Generate runs it); elsewhere the rounded values come back in
// the input's type, since a float32 convolution cannot take float16 input.
class MaisiGroupNormImpl : public torch::nn::Module {
 public:
  MaisiGroupNormImpl(std::int64_t num_groups, std::int64_t num_channels, double eps, bool norm_float16);
  at::Tensor forward(const at::Tensor& x);

  at::Tensor weight;
  at::Tensor bias;

 private:
  std::int64_t num_groups_;
  double eps_;
  bool norm_float16_;
};
TORCH_MODULE(MaisiGroupNorm);

SplitConvolution maisi_conv(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
                            const MaisiBlockOptions& options);

class MaisiResBlockImpl : public torch::nn::Module {
 public:
  MaisiResBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t norm_num_groups, double norm_eps,
                    const MaisiBlockOptions& options);
  at::Tensor forward(const at::Tensor& x);

  MaisiGroupNorm norm1{nullptr};
  SplitConvolution conv1{nullptr};
  MaisiGroupNorm norm2{nullptr};
  SplitConvolution conv2{nullptr};
  SplitConvolution nin_shortcut{nullptr};  // null when in == out
};
TORCH_MODULE(MaisiResBlock);

class MaisiDownsampleImpl : public torch::nn::Module {
 public:
  MaisiDownsampleImpl(std::int64_t channels, const MaisiBlockOptions& options);
  at::Tensor forward(const at::Tensor& x);

  SplitConvolution conv{nullptr};
};
TORCH_MODULE(MaisiDownsample);

class MaisiUpsampleImpl : public torch::nn::Module {
 public:
  MaisiUpsampleImpl(std::int64_t channels, bool use_convtranspose, const MaisiBlockOptions& options);
  at::Tensor forward(const at::Tensor& x);

  SplitConvolution conv{nullptr};

 private:
  bool use_convtranspose_;
};
TORCH_MODULE(MaisiUpsample);

}  // namespace medsynth
