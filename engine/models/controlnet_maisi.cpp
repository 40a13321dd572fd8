#include "models/controlnet_maisi.hpp"

#include <ATen/ATen.h>
#include <torch/nn/modules/conv.h>

#include "core/error.hpp"
#include "models/unet_levels.hpp"

namespace medsynth {
namespace {

// ControlNet's zero convolutions: a fresh ControlNet leaves the UNet unchanged.
template <typename Conv>
Conv zeroed(Conv conv) {
  torch::NoGradGuard no_grad;
  for (auto& p : conv->parameters()) p.zero_();
  return conv;
}

}  // namespace

ControlNetConditioningEmbeddingImpl::ControlNetConditioningEmbeddingImpl(std::int64_t in_channels, std::int64_t out_channels,
                                                                         const std::vector<int>& channels) {
  conv_in = register_module("conv_in", conv3x3(in_channels, channels.front()));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (std::size_t i = 0; i + 1 < channels.size(); ++i) {
    blocks->push_back(conv3x3(channels[i], channels[i]));
    blocks->push_back(Convolution(ConvolutionOptions{channels[i], channels[i + 1], 3, 2, 1, true}));
  }
  conv_out = register_module("conv_out", zeroed(conv3x3(channels.back(), out_channels)));
}

at::Tensor ControlNetConditioningEmbeddingImpl::forward(const at::Tensor& condition) {
  auto h = at::silu(conv_in->forward(condition));  // MONAI's Convolution(adn_ordering="A", act="SWISH")
  for (const auto& block : *blocks) h = at::silu(block->as<ConvolutionImpl>()->forward(h));
  return conv_out->forward(h);
}

ControlNetMaisiImpl::ControlNetMaisiImpl(const ControlNetMaisiOptions& o) : options_(o) {
  o.validate("controlnet");
  const auto trunk = o.trunk();
  const auto& ch = o.channels;
  conv_in = register_module("conv_in", conv3x3(o.in_channels, ch[0]));
  embedding.register_on(*this, trunk, /*with_inputs=*/false);
  const std::int64_t temb = embedding.channels();
  controlnet_cond_embedding = register_module(
      "controlnet_cond_embedding",
      ControlNetConditioningEmbedding(o.conditioning_embedding_in_channels, ch[0], o.conditioning_embedding_num_channels));
  down_blocks = register_module("down_blocks", make_unet_down_blocks(trunk, temb));

  // One zero conv per skip the UNet keeps: conv_in's output, each resnet's, each downsampler's.
  controlnet_down_blocks = register_module("controlnet_down_blocks", torch::nn::ModuleList());
  controlnet_down_blocks->push_back(zeroed(torch::nn::Conv3d(torch::nn::Conv3dOptions(ch[0], ch[0], 1))));
  for (std::size_t i = 0; i < ch.size(); ++i) {
    const int skips = o.num_res_blocks[i] + (i + 1 < ch.size() ? 1 : 0);
    for (int j = 0; j < skips; ++j) controlnet_down_blocks->push_back(zeroed(conv1x1(ch[i], ch[i])));
  }
  middle_block = register_module("middle_block", make_unet_mid_block(trunk, temb));
  controlnet_mid_block = register_module("controlnet_mid_block", zeroed(conv1x1(ch.back(), ch.back())));
}

ControlNetResiduals ControlNetMaisiImpl::forward(const at::Tensor& x, const at::Tensor& timesteps, const at::Tensor& condition,
                                                 double conditioning_scale, const at::Tensor& context,
                                                 const UnetEmbeddingInputs& inputs) {
  if (context.defined() && !options_.with_conditioning)
    throw UsageError("the ControlNet was built without with_conditioning and takes no context");
  const auto emb = embedding.forward(x, timesteps, inputs);
  auto h = conv_in->forward(x) + controlnet_cond_embedding->forward(condition.to(x.scalar_type()));
  std::vector<at::Tensor> skips;
  h = run_unet_down_blocks(down_blocks, h, emb, context, skips);
  h = middle_block->forward(h, emb, context);

  ControlNetResiduals out;
  for (std::size_t i = 0; i < skips.size(); ++i) {
    auto& zero_conv = *controlnet_down_blocks[i];
    auto r = i == 0 ? zero_conv.as<torch::nn::Conv3dImpl>()->forward(skips[i]) : zero_conv.as<ConvolutionImpl>()->forward(skips[i]);
    out.down_block_residuals.push_back(r * conditioning_scale);
  }
  out.mid_block_residual = controlnet_mid_block->forward(h) * conditioning_scale;
  return out;
}

}  // namespace medsynth
