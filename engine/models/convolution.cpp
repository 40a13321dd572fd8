#include "models/convolution.hpp"

#include "models/conv3d_forward.hpp"

namespace medsynth {

ConvolutionImpl::ConvolutionImpl(const ConvolutionOptions& o) {
  if (o.transposed) {
    deconv = register_module("conv", torch::nn::ConvTranspose3d(
                                         torch::nn::ConvTranspose3dOptions(o.in_channels, o.out_channels, o.kernel_size)
                                             .stride(o.stride)
                                             .padding(o.padding)
                                             .output_padding(o.stride - 1)
                                             .bias(o.bias)));
  } else {
    conv = register_module("conv", torch::nn::Conv3d(conv3d_options(o.in_channels, o.out_channels, o.kernel_size,
                                                                    o.stride, o.padding, o.flat_depth)
                                                         .bias(o.bias)));
  }
}

torch::nn::Conv3dOptions conv3d_options(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel_size,
                                        std::int64_t stride, std::int64_t padding, bool flat_depth) {
  if (!flat_depth)
    return torch::nn::Conv3dOptions(in_channels, out_channels, kernel_size).stride(stride).padding(padding);
  return torch::nn::Conv3dOptions(in_channels, out_channels, {1, kernel_size, kernel_size})
      .stride({1, stride, stride})
      .padding({0, padding, padding});
}

at::Tensor ConvolutionImpl::forward(const at::Tensor& x) {
  return deconv ? deconv->forward(x) : conv3d_forward(*conv, x);
}
const at::Tensor& ConvolutionImpl::weight() const { return deconv ? deconv->weight : conv->weight; }
const at::Tensor& ConvolutionImpl::bias() const { return deconv ? deconv->bias : conv->bias; }

Convolution conv3x3(std::int64_t in_channels, std::int64_t out_channels) {
  return Convolution(ConvolutionOptions{in_channels, out_channels, 3, 1, 1, true});
}

Convolution conv1x1(std::int64_t in_channels, std::int64_t out_channels) {
  return Convolution(ConvolutionOptions{in_channels, out_channels, 1, 1, 0, true});
}

}  // namespace medsynth
