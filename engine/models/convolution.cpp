#include "models/convolution.hpp"

#include "models/conv3d_forward.hpp"

namespace medsynth {

ConvolutionImpl::ConvolutionImpl(const ConvolutionOptions& options) {
  conv = register_module(
      "conv", torch::nn::Conv3d(torch::nn::Conv3dOptions(options.in_channels, options.out_channels, options.kernel_size)
                                    .stride(options.stride)
                                    .padding(options.padding)
                                    .bias(options.bias)));
}

at::Tensor ConvolutionImpl::forward(const at::Tensor& x) { return conv3d_forward(*conv, x); }

Convolution conv3x3(std::int64_t in_channels, std::int64_t out_channels) {
  return Convolution(ConvolutionOptions{in_channels, out_channels, 3, 1, 1, true});
}

Convolution conv1x1(std::int64_t in_channels, std::int64_t out_channels) {
  return Convolution(ConvolutionOptions{in_channels, out_channels, 1, 1, 0, true});
}

}  // namespace medsynth
