#include "diffusion/diffusion_model_unet.hpp"

#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>

#include <cmath>

#include "core/error.hpp"

namespace medsynth {

at::Tensor timestep_embedding(const at::Tensor& timesteps, std::int64_t dim) {
  const std::int64_t half = dim / 2;
  auto opts = at::TensorOptions().dtype(at::kFloat).device(timesteps.device());
  auto freqs = at::exp(-std::log(10000.0) * at::arange(half, opts) / static_cast<double>(half));
  auto args = timesteps.to(at::kFloat).unsqueeze(1) * freqs.unsqueeze(0);
  auto emb = at::cat({at::cos(args), at::sin(args)}, 1);
  if (dim % 2 == 1) emb = at::constant_pad_nd(emb, {0, 1, 0, 0});
  return emb;
}

DiffusionModelUNetImpl::DiffusionModelUNetImpl(const DiffusionUnetOptions& o) : options_(o) {
  o.validate("model.diffusion_unet");
  const auto& ch = o.channels;
  const std::int64_t levels = static_cast<std::int64_t>(ch.size());
  const std::int64_t time_dim = ch[0] * 4;
  conv_in = register_module("conv_in", conv3x3(o.in_channels, ch[0]));
  time_embed = register_module("time_embed", torch::nn::Sequential(torch::nn::Linear(ch[0], time_dim), torch::nn::SiLU(),
                                                                  torch::nn::Linear(time_dim, time_dim)));
  std::int64_t temb = time_dim;
  if (o.include_spacing_input) {
    spacing_layer = register_module("spacing_layer", torch::nn::Sequential(torch::nn::Linear(3, time_dim), torch::nn::SiLU(),
                                                                          torch::nn::Linear(time_dim, time_dim)));
    temb += time_dim;
  }
  auto shape = [&](std::int64_t in, std::int64_t out) {
    return UnetBlockShape{in, out, temb, o.norm_num_groups, o.norm_eps};
  };
  auto heads = [&](std::size_t level) { return static_cast<std::int64_t>(o.num_head_channels[level]); };

  down_blocks = register_module("down_blocks", torch::nn::ModuleList());
  std::int64_t out_ch = ch[0];
  for (std::int64_t i = 0; i < levels; ++i) {
    const std::int64_t in_ch = out_ch;
    out_ch = ch[static_cast<std::size_t>(i)];
    const auto u = static_cast<std::size_t>(i);
    down_blocks->push_back(DiffusionDownBlock(shape(in_ch, out_ch), o.num_res_blocks[u], o.attention_levels[u], heads(u), i < levels - 1));
  }
  middle_block = register_module("middle_block", DiffusionMidBlock(shape(ch.back(), ch.back()), heads(ch.size() - 1)));

  up_blocks = register_module("up_blocks", torch::nn::ModuleList());
  out_ch = ch.back();
  for (std::int64_t i = 0; i < levels; ++i) {
    const auto level = static_cast<std::size_t>(levels - 1 - i);  // the matching down level
    const std::int64_t prev = out_ch;
    out_ch = ch[level];
    const std::int64_t in_ch = ch[level == 0 ? 0 : level - 1];
    up_blocks->push_back(DiffusionUpBlock(shape(in_ch, out_ch), prev, o.num_res_blocks[level] + 1, o.attention_levels[level], heads(level),
                                          i < levels - 1));
  }
  auto out_conv = conv3x3(ch[0], o.out_channels);
  {
    torch::NoGradGuard no_grad;  // MONAI's zero_module: a fresh network predicts 0
    out_conv->conv->weight.zero_();
    out_conv->conv->bias.zero_();
  }
  out = register_module("out", torch::nn::Sequential(
                                   torch::nn::GroupNorm(torch::nn::GroupNormOptions(o.norm_num_groups, ch[0]).eps(o.norm_eps).affine(true)),
                                   torch::nn::SiLU(), out_conv));
}

at::Tensor DiffusionModelUNetImpl::forward(const at::Tensor& x, const at::Tensor& timesteps, const at::Tensor& spacing) {
  auto emb = time_embed->forward(timestep_embedding(timesteps, options_.channels[0]).to(x.scalar_type()));
  if (spacing_layer) {
    if (!spacing.defined()) throw UsageError("the diffusion UNet was built with include_spacing_input and needs a spacing per sample");
    emb = at::cat({emb, spacing_layer->forward(spacing.to(x.scalar_type()))}, 1);
  }
  auto h = conv_in->forward(x);
  std::vector<at::Tensor> skips{h};
  for (const auto& block : *down_blocks) h = block->as<DiffusionDownBlockImpl>()->forward(h, emb, skips);
  h = middle_block->forward(h, emb);
  for (const auto& block : *up_blocks) h = block->as<DiffusionUpBlockImpl>()->forward(h, emb, skips);
  return out->forward(h);
}

}  // namespace medsynth
