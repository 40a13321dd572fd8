#include "models/maisi_autoencoder_blocks.hpp"

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>

#include <vector>

namespace medsynth {

MaisiGroupNormImpl::MaisiGroupNormImpl(std::int64_t num_groups, std::int64_t num_channels, double eps,
                                       bool norm_float16)
    : num_groups_(num_groups), eps_(eps), norm_float16_(norm_float16) {
  weight = register_parameter("weight", at::ones({num_channels}));
  bias = register_parameter("bias", at::zeros({num_channels}));
}

at::Tensor MaisiGroupNormImpl::forward(const at::Tensor& x) {
  const auto c = x.size(1);
  std::vector<std::int64_t> channel_shape(x.dim(), 1);
  channel_shape[1] = c;
  const auto w = weight.view(channel_shape), b = bias.view(channel_shape);
  auto y = at::group_norm(x.to(at::kFloat), num_groups_, /*weight=*/{}, /*bias=*/{}, eps_);
  if (!norm_float16_) return y.mul_(w).add_(b);
  // MONAI multiplies and adds in place on the float16 tensor: each step is
  // computed in float32 and rounded to float16.
  y = y.to(at::kHalf).mul_(w).add_(b);
  return at::autocast::is_autocast_enabled(x.device().type()) ? y : y.to(x.scalar_type());
}

SplitConvolution maisi_conv(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
                            const MaisiBlockOptions& o) {
  SplitConvolutionOptions c;
  c.in_channels = in_channels;
  c.out_channels = out_channels;
  c.kernel_size = kernel_size;
  c.padding = kernel_size / 2;
  c.num_splits = o.num_splits;
  c.dim_split = o.dim_split;
  return SplitConvolution(c);
}

MaisiResBlockImpl::MaisiResBlockImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t norm_num_groups,
                                     double norm_eps, const MaisiBlockOptions& o) {
  norm1 = register_module("norm1", MaisiGroupNorm(norm_num_groups, in_channels, norm_eps, o.norm_float16));
  conv1 = register_module("conv1", maisi_conv(in_channels, out_channels, 3, o));
  norm2 = register_module("norm2", MaisiGroupNorm(norm_num_groups, out_channels, norm_eps, o.norm_float16));
  conv2 = register_module("conv2", maisi_conv(out_channels, out_channels, 3, o));
  if (in_channels != out_channels) nin_shortcut = register_module("nin_shortcut", maisi_conv(in_channels, out_channels, 1, o));
}

at::Tensor MaisiResBlockImpl::forward(const at::Tensor& x) {
  auto h = conv1->forward(at::silu(norm1->forward(x)));
  h = conv2->forward(at::silu(norm2->forward(h)));
  return (nin_shortcut ? nin_shortcut->forward(x) : x) + h;
}

MaisiDownsampleImpl::MaisiDownsampleImpl(std::int64_t channels, const MaisiBlockOptions& o) {
  SplitConvolutionOptions c{channels, channels, 3, 2, 0, false, o.num_splits, o.dim_split};
  conv = register_module("conv", SplitConvolution(c));
}

at::Tensor MaisiDownsampleImpl::forward(const at::Tensor& x) {
  return conv->forward(at::constant_pad_nd(x, {0, 1, 0, 1, 0, 1}, 0.0));
}

MaisiUpsampleImpl::MaisiUpsampleImpl(std::int64_t channels, bool use_convtranspose, const MaisiBlockOptions& o)
    : use_convtranspose_(use_convtranspose) {
  SplitConvolutionOptions c{channels, channels, 3, use_convtranspose ? 2 : 1, 1, use_convtranspose, o.num_splits,
                            o.dim_split};
  conv = register_module("conv", SplitConvolution(c));
}

at::Tensor MaisiUpsampleImpl::forward(const at::Tensor& x) {
  if (use_convtranspose_) return conv->forward(x);
  const std::vector<double> scale{2.0, 2.0, 2.0};
  return conv->forward(at::upsample_trilinear3d(x, c10::nullopt, /*align_corners=*/false, at::ArrayRef<double>(scale)));
}

}  // namespace medsynth
