#include "models/resnet3d.hpp"

#include <ATen/ATen.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/normalization.h>

#include <algorithm>

#include "core/error.hpp"
#include "models/conv3d_forward.hpp"

namespace medsynth {
namespace {

torch::nn::AnyModule make_norm(const std::string& kind, int channels) {
  if (kind == "group") return torch::nn::AnyModule(torch::nn::GroupNorm(torch::nn::GroupNormOptions(std::min(8, channels), channels)));
  return torch::nn::AnyModule(torch::nn::BatchNorm3d(channels));
}

torch::nn::Conv3d conv(int in, int out, int kernel, int stride, int dilation = 1) {
  return torch::nn::Conv3d(torch::nn::Conv3dOptions(in, out, kernel)
                               .stride(stride)
                               .padding(dilation * (kernel / 2))
                               .dilation(dilation)
                               .bias(false));
}

// MONAI ResNetBlock (expansion 1) and ResNetBottleneck (expansion 4), one module each.
class BlockImpl : public torch::nn::Module {
 public:
  // `dilation` applies to the 3^3 convolutions (MedicalNet's layer3/layer4).
  BlockImpl(bool bottleneck, int in_planes, int planes, int stride, int dilation, const std::string& norm)
      : bottleneck_(bottleneck) {
    const int out = planes * (bottleneck ? 4 : 1);
    const int mid_stride = bottleneck ? 1 : stride;  // BasicBlock strides in conv1, Bottleneck in conv2
    conv1 =
        register_module("conv1", conv(in_planes, planes, bottleneck ? 1 : 3, mid_stride, bottleneck ? 1 : dilation));
    bn1 = make_norm(norm, planes);
    register_module("bn1", bn1.ptr());
    conv2 = register_module("conv2", conv(planes, planes, 3, bottleneck ? stride : 1, dilation));
    bn2 = make_norm(norm, planes);
    register_module("bn2", bn2.ptr());
    if (bottleneck) {
      conv3 = register_module("conv3", conv(planes, out, 1, 1));
      bn3 = make_norm(norm, out);
      register_module("bn3", bn3.ptr());
    }
    if (stride != 1 || in_planes != out) {
      downsample = torch::nn::Sequential(conv(in_planes, out, 1, stride));
      downsample->push_back(make_norm(norm, out));
      register_module("downsample", downsample);
    }
  }
  at::Tensor forward(const at::Tensor& x) {
    at::Tensor y = at::relu(bn1.forward(conv3d_forward(*conv1, x)));
    y = bn2.forward(conv3d_forward(*conv2, y));
    if (bottleneck_) y = bn3.forward(conv3d_forward(*conv3, at::relu(y)));
    at::Tensor shortcut = downsample ? downsample->forward(x) : x;
    return at::relu(y + shortcut);
  }

  torch::nn::Conv3d conv1{nullptr}, conv2{nullptr}, conv3{nullptr};
  torch::nn::AnyModule bn1, bn2, bn3;
  torch::nn::Sequential downsample{nullptr};

 private:
  bool bottleneck_;
};
TORCH_MODULE(Block);

std::vector<int> layers_of(int depth) {
  switch (depth) {
    case 10: return {1, 1, 1, 1};
    case 18: return {2, 2, 2, 2};
    case 34: return {3, 4, 6, 3};
    case 50: return {3, 4, 6, 3};
    default: return {};
  }
}

}  // namespace

ResNet3dImpl::ResNet3dImpl(const ResNet3dOptions& options) : options_(options) {
  options_.validate();
  const bool bottleneck = options_.depth == 50;
  const auto layers = layers_of(options_.depth);
  const auto& planes = options_.block_inplanes;
  conv1 = register_module("conv1", conv(options_.n_input_channels, planes[0], options_.conv1_t_size, options_.conv1_t_stride));
  bn1 = make_norm(options_.norm, planes[0]);
  register_module("bn1", bn1.ptr());
  int in_planes = planes[0];
  torch::nn::Sequential* targets[4] = {&layer1, &layer2, &layer3, &layer4};
  for (int l = 0; l < 4; ++l) {
    torch::nn::Sequential layer;
    // MedicalNet keeps layer3/layer4 at layer2's size and dilates instead.
    const bool dilated = options_.medicalnet_dilation && l >= 2;
    const int stride = l > 0 && !dilated ? 2 : 1, dilation = dilated ? (l == 2 ? 2 : 4) : 1;
    for (int b = 0; b < layers[static_cast<std::size_t>(l)]; ++b) {
      layer->push_back(Block(bottleneck, in_planes, planes[static_cast<std::size_t>(l)], b == 0 ? stride : 1, dilation,
                             options_.norm));
      in_planes = planes[static_cast<std::size_t>(l)] * (bottleneck ? 4 : 1);
    }
    *targets[l] = register_module("layer" + std::to_string(l + 1), layer);
  }
  fc = register_module("fc", torch::nn::Linear(in_planes, 1));
  if (options_.num_covariates > 0)
    covariate_fc = register_module("covariate_fc", torch::nn::Linear(torch::nn::LinearOptions(options_.num_covariates, 1).bias(false)));
}

at::Tensor ResNet3dImpl::feature_map(const at::Tensor& x) {
  at::Tensor y = at::relu(bn1.forward(conv3d_forward(*conv1, x)));
  if (!options_.no_max_pool) y = at::max_pool3d(y, {3, 3, 3}, {2, 2, 2}, {1, 1, 1});
  return layer4->forward(layer3->forward(layer2->forward(layer1->forward(y))));
}

at::Tensor ResNet3dImpl::features(const at::Tensor& x) {
  return at::adaptive_avg_pool3d(feature_map(x), {1, 1, 1}).flatten(1);
}

at::Tensor ResNet3dImpl::forward(const at::Tensor& x, const at::Tensor& covariates) {
  at::Tensor risk = fc->forward(features(x)).squeeze(1);
  if (covariate_fc && covariates.defined()) risk = risk + covariate_fc->forward(covariates.to(risk.scalar_type())).squeeze(1);
  return risk;
}

}  // namespace medsynth
