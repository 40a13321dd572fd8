#include "models/radimagenet_resnet.hpp"

#include <ATen/ATen.h>
#include <torch/nn/functional/pooling.h>

namespace medsynth {
namespace {

constexpr double kKerasBatchNormEps = 1.001e-5;  // Keras' ResNet50 BatchNormalization epsilon

torch::nn::Conv2d conv(int in, int out, int kernel, int stride) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(true));
}

torch::nn::BatchNorm2d norm(int channels) {
  return torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(channels).eps(kKerasBatchNormEps));
}

// Keras' bottleneck: the stride is in conv1 (1x1), the shortcut is a strided
// 1x1 convolution + norm when the shape changes.
class KerasBottleneckImpl : public torch::nn::Module {
 public:
  KerasBottleneckImpl(int in, int width, int stride) {
    const int out = 4 * width;
    conv1 = register_module("conv1", conv(in, width, 1, stride));
    bn1 = register_module("bn1", norm(width));
    conv2 = register_module("conv2", conv(width, width, 3, 1));
    bn2 = register_module("bn2", norm(width));
    conv3 = register_module("conv3", conv(width, out, 1, 1));
    bn3 = register_module("bn3", norm(out));
    if (stride != 1 || in != out) {
      downsample = torch::nn::Sequential(conv(in, out, 1, stride), norm(out));
      register_module("downsample", downsample);
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    at::Tensor y = at::relu(bn1->forward(conv1->forward(x)));
    y = at::relu(bn2->forward(conv2->forward(y)));
    y = bn3->forward(conv3->forward(y));
    return at::relu(y + (downsample ? downsample->forward(x) : x));
  }

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr}, bn3{nullptr};
  torch::nn::Sequential downsample{nullptr};
};
TORCH_MODULE(KerasBottleneck);

}  // namespace

RadImageNetResNetImpl::RadImageNetResNetImpl(const RadImageNetResNetOptions& options) : options_(options) {
  conv1 = register_module("conv1", conv(options.input_channels, options.stem_width, 7, 2));
  bn1 = register_module("bn1", norm(options.stem_width));
  int in = options.stem_width;
  torch::nn::Sequential* layers[] = {&layer1, &layer2, &layer3, &layer4};
  for (int l = 0; l < 4; ++l) {
    torch::nn::Sequential layer;
    for (int b = 0; b < options.blocks[l]; ++b) {
      const int stride = (b == 0 && l > 0) ? 2 : 1;  // layer1 keeps the max-pool's size
      layer->push_back(KerasBottleneck(in, options.widths[l], stride));
      in = 4 * options.widths[l];
    }
    *layers[l] = register_module("layer" + std::to_string(l + 1), layer);
  }
}

at::Tensor RadImageNetResNetImpl::forward(const at::Tensor& x) {
  at::Tensor y = at::relu(bn1->forward(conv1->forward(x)));
  y = at::max_pool2d(y, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  return layer4->forward(layer3->forward(layer2->forward(layer1->forward(y))));
}

at::Tensor RadImageNetResNetImpl::features(const at::Tensor& x) { return forward(x).mean({2, 3}); }

}  // namespace medsynth
