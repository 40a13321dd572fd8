#include "diffusion/diffusion_unet_blocks.hpp"

#include <ATen/ATen.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/upsampling.h>

namespace medsynth {
namespace {

torch::nn::GroupNorm group_norm(std::int64_t groups, std::int64_t channels, double eps) {
  return torch::nn::GroupNorm(torch::nn::GroupNormOptions(groups, channels).eps(eps).affine(true));
}


}  // namespace

DiffusionResnetBlockImpl::DiffusionResnetBlockImpl(const UnetBlockShape& s) {
  norm1 = register_module("norm1", group_norm(s.norm_num_groups, s.in_channels, s.norm_eps));
  conv1 = register_module("conv1", conv3x3(s.in_channels, s.out_channels));
  time_emb_proj = register_module("time_emb_proj", torch::nn::Linear(s.temb_channels, s.out_channels));
  norm2 = register_module("norm2", group_norm(s.norm_num_groups, s.out_channels, s.norm_eps));
  conv2 = register_module("conv2", conv3x3(s.out_channels, s.out_channels));
  // MONAI zero-initialises conv2 so that a fresh block starts as the identity.
  {
    torch::NoGradGuard no_grad;
    conv2->conv->weight.zero_();
    conv2->conv->bias.zero_();
  }
  if (s.in_channels != s.out_channels) skip_connection = register_module("skip_connection", conv1x1(s.in_channels, s.out_channels));
}

at::Tensor DiffusionResnetBlockImpl::forward(const at::Tensor& x, const at::Tensor& emb) {
  auto h = conv1->forward(at::silu(norm1->forward(x)));
  auto temb = time_emb_proj->forward(at::silu(emb));
  h = h + temb.view({temb.size(0), temb.size(1), 1, 1, 1});
  h = conv2->forward(at::silu(norm2->forward(h)));
  return (skip_connection ? skip_connection->forward(x) : x) + h;
}

DiffusionDownsampleImpl::DiffusionDownsampleImpl(std::int64_t channels) {
  op = register_module("op", Convolution(ConvolutionOptions{channels, channels, 3, 2, 1, true}));
}

DiffusionUpsampleImpl::DiffusionUpsampleImpl(std::int64_t channels) { postconv = register_module("postconv", conv3x3(channels, channels)); }

at::Tensor DiffusionUpsampleImpl::forward(const at::Tensor& x) {
  namespace F = torch::nn::functional;
  auto up = F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0, 2.0}).mode(torch::kNearest));
  return postconv->forward(up);
}

DiffusionDownBlockImpl::DiffusionDownBlockImpl(const UnetBlockShape& s, int num_res_blocks, bool with_attention,
                                               std::int64_t num_head_channels, bool add_downsample) {
  resnets = register_module("resnets", torch::nn::ModuleList());
  if (with_attention) attentions = register_module("attentions", torch::nn::ModuleList());
  for (int i = 0; i < num_res_blocks; ++i) {
    UnetBlockShape r = s;
    r.in_channels = i == 0 ? s.in_channels : s.out_channels;
    resnets->push_back(DiffusionResnetBlock(r));
    if (with_attention) attentions->push_back(SpatialAttentionBlock(s.out_channels, s.norm_num_groups, s.norm_eps, num_head_channels));
  }
  if (add_downsample) downsampler = register_module("downsampler", DiffusionDownsample(s.out_channels));
}

at::Tensor DiffusionDownBlockImpl::forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips) {
  for (std::size_t i = 0; i < resnets->size(); ++i) {
    h = resnets[i]->as<DiffusionResnetBlockImpl>()->forward(h, emb);
    if (attentions) h = attentions[i]->as<SpatialAttentionBlockImpl>()->forward(h);
    skips.push_back(h);
  }
  if (downsampler) {
    h = downsampler->forward(h);
    skips.push_back(h);
  }
  return h;
}

DiffusionMidBlockImpl::DiffusionMidBlockImpl(const UnetBlockShape& s, std::int64_t num_head_channels) {
  resnet_1 = register_module("resnet_1", DiffusionResnetBlock(s));
  attention = register_module("attention", SpatialAttentionBlock(s.in_channels, s.norm_num_groups, s.norm_eps, num_head_channels));
  resnet_2 = register_module("resnet_2", DiffusionResnetBlock(s));
}

at::Tensor DiffusionMidBlockImpl::forward(const at::Tensor& h, const at::Tensor& emb) {
  return resnet_2->forward(attention->forward(resnet_1->forward(h, emb)), emb);
}

DiffusionUpBlockImpl::DiffusionUpBlockImpl(const UnetBlockShape& s, std::int64_t prev_output_channels, int num_res_blocks,
                                           bool with_attention, std::int64_t num_head_channels, bool add_upsample) {
  resnets = register_module("resnets", torch::nn::ModuleList());
  if (with_attention) attentions = register_module("attentions", torch::nn::ModuleList());
  for (int i = 0; i < num_res_blocks; ++i) {
    // The last resnet of a level takes the skip saved before that level's downsampler.
    const std::int64_t skip_channels = i == num_res_blocks - 1 ? s.in_channels : s.out_channels;
    UnetBlockShape r = s;
    r.in_channels = (i == 0 ? prev_output_channels : s.out_channels) + skip_channels;
    resnets->push_back(DiffusionResnetBlock(r));
    if (with_attention) attentions->push_back(SpatialAttentionBlock(s.out_channels, s.norm_num_groups, s.norm_eps, num_head_channels));
  }
  if (add_upsample) upsampler = register_module("upsampler", DiffusionUpsample(s.out_channels));
}

at::Tensor DiffusionUpBlockImpl::forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips) {
  for (std::size_t i = 0; i < resnets->size(); ++i) {
    h = at::cat({h, skips.back()}, 1);
    skips.pop_back();
    h = resnets[i]->as<DiffusionResnetBlockImpl>()->forward(h, emb);
    if (attentions) h = attentions[i]->as<SpatialAttentionBlockImpl>()->forward(h);
  }
  if (upsampler) h = upsampler->forward(h);
  return h;
}

}  // namespace medsynth
