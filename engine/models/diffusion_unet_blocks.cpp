#include "models/diffusion_unet_blocks.hpp"

#include <ATen/ATen.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/upsampling.h>

#include "models/nearest_upsample_conv.hpp"

namespace medsynth {
namespace {

torch::nn::GroupNorm group_norm(std::int64_t groups, std::int64_t channels, double eps) {
  return torch::nn::GroupNorm(torch::nn::GroupNormOptions(groups, channels).eps(eps).affine(true));
}

at::Tensor nearest_x2(const at::Tensor& x) {
  namespace F = torch::nn::functional;
  return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.0, 2.0, 2.0}).mode(torch::kNearest));
}

// The attention module of one resnet at a level, or nullptr without attention.
std::shared_ptr<torch::nn::Module> make_unet_attention(const UnetAttentionSpec& a, const UnetBlockShape& s, std::int64_t channels) {
  if (a.kind == UnetAttentionSpec::Kind::self)
    return SpatialAttentionBlock(channels, s.norm_num_groups, s.norm_eps, a.num_head_channels, a.self).ptr();
  if (a.kind == UnetAttentionSpec::Kind::cross) {
    auto t = a.transformer;
    t.channels = channels;
    t.num_head_channels = a.num_head_channels;
    t.norm_num_groups = s.norm_num_groups;
    t.norm_eps = s.norm_eps;
    return SpatialTransformer(t).ptr();
  }
  return nullptr;
}

}  // namespace

at::Tensor apply_unet_attention(torch::nn::Module& attention, const at::Tensor& h, const at::Tensor& context) {
  if (auto* transformer = dynamic_cast<SpatialTransformerImpl*>(&attention)) return transformer->forward(h, context);
  return dynamic_cast<SpatialAttentionBlockImpl&>(attention).forward(h);
}

DiffusionResnetBlockImpl::DiffusionResnetBlockImpl(const UnetBlockShape& s, ResnetResample resample) : resample_(resample) {
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

at::Tensor DiffusionResnetBlockImpl::forward(const at::Tensor& input, const at::Tensor& emb) {
  auto h = at::silu(norm1->forward(input));
  auto x = input;
  if (resample_ == ResnetResample::up) {
    x = nearest_x2(x), h = nearest_x2(h);
  } else if (resample_ == ResnetResample::down) {
    x = at::avg_pool3d(x, 2, 2), h = at::avg_pool3d(h, 2, 2);
  }
  h = conv1->forward(h);
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
  if (nearest_upsample_conv_applies(x, postconv->weight()))
    return conv3x3_of_nearest_x2(x, postconv->weight(), postconv->bias());
  return postconv->forward(nearest_x2(x));
}

DiffusionDownBlockImpl::DiffusionDownBlockImpl(const UnetBlockShape& s, int num_res_blocks, const UnetAttentionSpec& attention,
                                               bool add_downsample, bool resblock_updown) {
  resnets = register_module("resnets", torch::nn::ModuleList());
  if (attention.kind != UnetAttentionSpec::Kind::none) attentions = register_module("attentions", torch::nn::ModuleList());
  for (int i = 0; i < num_res_blocks; ++i) {
    UnetBlockShape r = s;
    r.in_channels = i == 0 ? s.in_channels : s.out_channels;
    resnets->push_back(DiffusionResnetBlock(r));
    if (attentions) attentions->push_back(make_unet_attention(attention, s, s.out_channels));
  }
  if (!add_downsample) return;
  if (resblock_updown) {
    UnetBlockShape r = s;
    r.in_channels = s.out_channels;
    resnet_downsampler = register_module("downsampler", DiffusionResnetBlock(r, ResnetResample::down));
  } else {
    downsampler = register_module("downsampler", DiffusionDownsample(s.out_channels));
  }
}

at::Tensor DiffusionDownBlockImpl::forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips,
                                           const at::Tensor& context) {
  for (std::size_t i = 0; i < resnets->size(); ++i) {
    h = resnets[i]->as<DiffusionResnetBlockImpl>()->forward(h, emb);
    if (attentions) h = apply_unet_attention(*attentions[i], h, context);
    skips.push_back(h);
  }
  if (downsampler || resnet_downsampler) {
    h = downsampler ? downsampler->forward(h) : resnet_downsampler->forward(h, emb);
    skips.push_back(h);
  }
  return h;
}

DiffusionMidBlockImpl::DiffusionMidBlockImpl(const UnetBlockShape& s, const UnetAttentionSpec& a) {
  resnet_1 = register_module("resnet_1", DiffusionResnetBlock(s));
  auto module = make_unet_attention(a, s, s.in_channels);
  if (a.kind == UnetAttentionSpec::Kind::cross)
    transformer = register_module("attention", SpatialTransformer(std::dynamic_pointer_cast<SpatialTransformerImpl>(module)));
  else
    attention = register_module("attention", SpatialAttentionBlock(std::dynamic_pointer_cast<SpatialAttentionBlockImpl>(module)));
  resnet_2 = register_module("resnet_2", DiffusionResnetBlock(s));
}

at::Tensor DiffusionMidBlockImpl::forward(const at::Tensor& h, const at::Tensor& emb, const at::Tensor& context) {
  auto x = resnet_1->forward(h, emb);
  x = transformer ? transformer->forward(x, context) : attention->forward(x);
  return resnet_2->forward(x, emb);
}

DiffusionUpBlockImpl::DiffusionUpBlockImpl(const UnetBlockShape& s, std::int64_t prev_output_channels, int num_res_blocks,
                                           const UnetAttentionSpec& attention, bool add_upsample, bool resblock_updown) {
  resnets = register_module("resnets", torch::nn::ModuleList());
  if (attention.kind != UnetAttentionSpec::Kind::none) attentions = register_module("attentions", torch::nn::ModuleList());
  for (int i = 0; i < num_res_blocks; ++i) {
    // The last resnet of a level takes the skip saved before that level's downsampler.
    const std::int64_t skip_channels = i == num_res_blocks - 1 ? s.in_channels : s.out_channels;
    UnetBlockShape r = s;
    r.in_channels = (i == 0 ? prev_output_channels : s.out_channels) + skip_channels;
    resnets->push_back(DiffusionResnetBlock(r));
    if (attentions) attentions->push_back(make_unet_attention(attention, s, s.out_channels));
  }
  if (!add_upsample) return;
  if (resblock_updown) {
    UnetBlockShape r = s;
    r.in_channels = s.out_channels;
    resnet_upsampler = register_module("upsampler", DiffusionResnetBlock(r, ResnetResample::up));
  } else {
    upsampler = register_module("upsampler", DiffusionUpsample(s.out_channels));
  }
}

at::Tensor DiffusionUpBlockImpl::forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips, const at::Tensor& context) {
  for (std::size_t i = 0; i < resnets->size(); ++i) {
    h = at::cat({h, skips.back()}, 1);
    skips.pop_back();
    h = resnets[i]->as<DiffusionResnetBlockImpl>()->forward(h, emb);
    if (attentions) h = apply_unet_attention(*attentions[i], h, context);
  }
  if (upsampler) return upsampler->forward(h);
  return resnet_upsampler ? resnet_upsampler->forward(h, emb) : h;
}

}  // namespace medsynth
