#include "models/patch_discriminator.hpp"

#include "models/conv3d_forward.hpp"

#include <ATen/ATen.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/instancenorm.h>
#include <torch/nn/modules/normalization.h>

#include <cmath>

#include "core/error.hpp"

namespace medsynth {

namespace {

std::int64_t padding_of(const PatchDiscriminatorOptions& o) { return (o.kernel_size - 1) / 2; }

}  // namespace

DiscriminatorLayerImpl::DiscriminatorLayerImpl(const PatchDiscriminatorOptions& o, std::int64_t in_channels,
                                               std::int64_t out_channels, std::int64_t stride, bool with_norm) {
  // MONAI: the first layer has a bias and no norm; the others the reverse (a
  // bias before a norm is cancelled by it).
  conv = register_module("conv", torch::nn::Conv3d(conv3d_options(in_channels, out_channels, o.kernel_size, stride,
                                                                  padding_of(o), o.spatial_dims == 2)
                                                       .bias(!with_norm)));
  torch::nn::Sequential seq;
  if (with_norm) {
    if (o.norm == DiscriminatorNorm::group)
      seq->push_back("N", torch::nn::GroupNorm(torch::nn::GroupNormOptions(o.norm_num_groups, out_channels)));
    else
      seq->push_back("N", torch::nn::InstanceNorm3d(torch::nn::InstanceNorm3dOptions(out_channels)));
  }
  seq->push_back("A", torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(o.negative_slope)));
  adn = register_module("adn", seq);
}

at::Tensor DiscriminatorLayerImpl::forward(const at::Tensor& x) { return adn->forward(conv3d_forward(*conv, x)); }

PatchDiscriminatorImpl::PatchDiscriminatorImpl(const PatchDiscriminatorOptions& options) : options_(options) {
  options_.validate();
  const auto& o = options_;
  initial_conv = register_module("initial_conv", DiscriminatorLayer(o, o.in_channels, o.channels, 2, false));
  std::int64_t in = o.channels;
  for (int l = 0; l < o.num_layers_d; ++l) {
    const std::int64_t stride = l == o.num_layers_d - 1 ? 1 : 2;
    layers.push_back(register_module(std::to_string(l), DiscriminatorLayer(o, in, 2 * in, stride, true)));
    in *= 2;
  }
  final_conv =
      register_module("final_conv", Convolution(ConvolutionOptions{in, o.out_channels, o.kernel_size, 1, padding_of(o),
                                                                   true, false, o.spatial_dims == 2}));

  // MONAI's normal_init: conv weights ~ N(0, std), biases 0 (GAN practice since DCGAN).
  at::NoGradGuard no_grad;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* c = m->as<torch::nn::Conv3dImpl>()) {
      torch::nn::init::normal_(c->weight, 0.0, o.init_std);
      if (c->bias.defined()) torch::nn::init::zeros_(c->bias);
    }
  }
}

void PatchDiscriminatorImpl::check_input(const at::Tensor& x) const {
  const int dims = options_.spatial_dims;
  bool ok = x.defined() && x.dim() == dims + 2 && x.size(1) == options_.in_channels;
  for (int d = 2; ok && d < dims + 2; ++d) ok = options_.output_size(x.size(d)) >= 1;
  if (!ok) {
    std::string shape = "undefined";
    if (x.defined()) {
      shape = "[";
      for (std::int64_t i = 0; i < x.dim(); ++i) shape += (i ? ", " : "") + std::to_string(x.size(i));
      shape += "]";
    }
    throw UsageError("PatchDiscriminator: input must be [B, " + std::to_string(options_.in_channels) +
                     (dims == 2 ? ", H, W]" : ", D, H, W]") + " large enough for " +
                     std::to_string(options_.num_layers_d) + " layers (got " + shape + ")");
  }
}

std::vector<at::Tensor> PatchDiscriminatorImpl::features(const at::Tensor& x) {
  check_input(x);
  std::vector<at::Tensor> out;
  out.reserve(layers.size() + 2);
  // A 2D network runs as the 3D one on depth-1 slices (depth-1 kernels): the same code, the same norms.
  const bool flat = options_.spatial_dims == 2;
  out.push_back(initial_conv->forward(flat ? x.unsqueeze(2) : x));
  for (auto& layer : layers) out.push_back(layer->forward(out.back()));
  out.push_back(final_conv->forward(out.back()));
  if (flat)
    for (auto& t : out) t = t.squeeze(2);
  return out;
}

at::Tensor PatchDiscriminatorImpl::forward(const at::Tensor& x) { return features(x).back(); }

}  // namespace medsynth
