#include "models/autoencoder_blocks.hpp"

#include <ATen/ATen.h>

#include <vector>

#include "models/nearest_upsample_conv.hpp"

namespace medsynth {

namespace {

torch::nn::GroupNorm group_norm(std::int64_t channels, std::int64_t groups, double eps) {
  return torch::nn::GroupNorm(torch::nn::GroupNormOptions(groups, channels).eps(eps).affine(true));
}

}  // namespace

AutoencoderResBlockImpl::AutoencoderResBlockImpl(std::int64_t in_channels, std::int64_t out_channels,
                                                 std::int64_t norm_num_groups, double norm_eps) {
  norm1 = register_module("norm1", group_norm(in_channels, norm_num_groups, norm_eps));
  conv1 = register_module("conv1", conv3x3(in_channels, out_channels));
  norm2 = register_module("norm2", group_norm(out_channels, norm_num_groups, norm_eps));
  conv2 = register_module("conv2", conv3x3(out_channels, out_channels));
  if (in_channels != out_channels) nin_shortcut = register_module("nin_shortcut", conv1x1(in_channels, out_channels));
}

at::Tensor AutoencoderResBlockImpl::forward(const at::Tensor& x) {
  auto h = conv1->forward(at::silu(norm1->forward(x)));
  h = conv2->forward(at::silu(norm2->forward(h)));
  return (nin_shortcut ? nin_shortcut->forward(x) : x) + h;
}

AutoencoderDownsampleImpl::AutoencoderDownsampleImpl(std::int64_t channels) {
  conv = register_module("conv", Convolution(ConvolutionOptions{channels, channels, 3, 2, 0, true}));
}

at::Tensor AutoencoderDownsampleImpl::forward(const at::Tensor& x) {
  // (left, right) pairs from the last axis back: (0, 1) on W, H and D.
  return conv->forward(at::constant_pad_nd(x, {0, 1, 0, 1, 0, 1}, 0.0));
}

AutoencoderUpsampleImpl::AutoencoderUpsampleImpl(std::int64_t channels, bool use_convtranspose) {
  if (use_convtranspose) {
    // MONAI UpSample(mode="deconv") without kernel_size: kernel = stride = scale factor 2.
    deconv = register_module("deconv",
                             torch::nn::ConvTranspose3d(torch::nn::ConvTranspose3dOptions(channels, channels, 2).stride(2)));
  } else {
    postconv = register_module("postconv", conv3x3(channels, channels));
  }
}

at::Tensor AutoencoderUpsampleImpl::forward(const at::Tensor& x) {
  if (deconv) return deconv->forward(x);
  if (nearest_upsample_conv_applies(x, postconv->weight()))
    return conv3x3_of_nearest_x2(x, postconv->weight(), postconv->bias());
  const std::vector<double> scale{2.0, 2.0, 2.0};
  return postconv->forward(at::upsample_nearest3d(x, c10::nullopt, at::ArrayRef<double>(scale)));
}

}  // namespace medsynth
