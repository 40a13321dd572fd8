// A 3D convolution that can run in pieces along one spatial axis, with
// MONAI's MAISI names: `MaisiConvolution` holds MONAI's `Convolution` as
// child "conv", which holds the nn.Conv3d (or nn.ConvTranspose3d) as "conv",
// hence NV-Generate's `encoder.blocks.0.conv.conv.weight`.
//
// Why pieces: the full-size MAISI autoencoder decodes a 512^3 CT; one of its
// 64-channel activations is 32 GiB in float32, and a convolution needs input,
// output and workspace at once. Cut along `dim_split` into `num_splits`
// pieces, each piece's workspace is 1/num_splits of that. Unlike MONAI, which
// cuts the input with a fixed overlap of 3 voxels (and loses voxels when a
// size does not divide), the pieces here are cut from the output: each takes
// exactly the input it needs, zero padding included, so the result equals the
// unsplit convolution for every size, stride and split count.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "models/convolution.hpp"

namespace medsynth {

struct SplitConvolutionOptions {
  std::int64_t in_channels = 1;
  std::int64_t out_channels = 1;
  std::int64_t kernel_size = 3;
  std::int64_t stride = 1;
  std::int64_t padding = 1;
  bool transposed = false;  // ConvTranspose3d, output_padding = stride - 1 (MONAI's default)
  int num_splits = 1;       // 1: one piece
  int dim_split = 0;        // 0, 1, 2 = D, H, W
};

class SplitConvolutionImpl : public torch::nn::Module {
 public:
  explicit SplitConvolutionImpl(const SplitConvolutionOptions& options);
  at::Tensor forward(const at::Tensor& x);

  Convolution conv{nullptr};

 private:
  at::Tensor forward_in_pieces(const at::Tensor& x) const;
  at::Tensor transposed_in_pieces(const at::Tensor& x) const;
  SplitConvolutionOptions options_;
};
TORCH_MODULE(SplitConvolution);

}  // namespace medsynth
