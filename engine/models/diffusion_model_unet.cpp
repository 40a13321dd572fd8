#include "models/diffusion_model_unet.hpp"

#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>

#include <string>

#include "core/error.hpp"
#include "models/unet_levels.hpp"

namespace medsynth {

DiffusionModelUNetImpl::DiffusionModelUNetImpl(const DiffusionUnetOptions& o) : options_(o) {
  o.validate("model.diffusion_unet");
  const auto& ch = o.channels;
  const std::int64_t levels = static_cast<std::int64_t>(ch.size());
  conv_in = register_module("conv_in", conv3x3(o.in_channels, ch[0]));
  embedding.register_on(*this, o, /*with_inputs=*/true);
  const std::int64_t temb = embedding.channels();

  down_blocks = register_module("down_blocks", make_unet_down_blocks(o, temb));
  middle_block = register_module("middle_block", make_unet_mid_block(o, temb));

  up_blocks = register_module("up_blocks", torch::nn::ModuleList());
  std::int64_t out_ch = ch.back();
  for (std::int64_t i = 0; i < levels; ++i) {
    const auto level = static_cast<std::size_t>(levels - 1 - i);  // the matching down level
    const std::int64_t prev = out_ch;
    out_ch = ch[level];
    const std::int64_t in_ch = ch[level == 0 ? 0 : level - 1];
    up_blocks->push_back(DiffusionUpBlock(unet_block_shape(o, in_ch, out_ch, temb), prev, o.num_res_blocks[level] + 1,
                                          unet_attention_spec(o, level), i < levels - 1, o.resblock_updown));
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
  UnetConditioning c;
  c.embedding.spacing = spacing;
  return forward(x, timesteps, c);
}

at::Tensor DiffusionModelUNetImpl::forward(const at::Tensor& x, const at::Tensor& timesteps, const UnetConditioning& c) {
  if (c.context.defined() && !options_.with_conditioning)
    throw UsageError("the diffusion UNet was built without with_conditioning and takes no context");
  const auto emb = embedding.forward(x, timesteps, c.embedding);
  std::vector<at::Tensor> skips;
  auto h = run_unet_down_blocks(down_blocks, conv_in->forward(x), emb, c.context, skips);
  const auto& extra = c.down_block_additional_residuals;
  if (!extra.empty()) {
    if (extra.size() != skips.size())
      throw UsageError("the diffusion UNet takes " + std::to_string(skips.size()) + " down-block residuals, not " +
                       std::to_string(extra.size()));
    for (std::size_t i = 0; i < skips.size(); ++i) skips[i] = skips[i] + extra[i];
    // MONAI adds in place, and the last skip is the very tensor the middle
    // block then reads: it sees the residual too.
    h = skips.back();
  }
  h = middle_block->forward(h, emb, c.context);
  if (c.mid_block_additional_residual.defined()) h = h + c.mid_block_additional_residual;
  return out->forward(run_up_blocks(h, emb, c.context, skips));
}

at::Tensor DiffusionModelUNetImpl::run_up_blocks(at::Tensor h, const at::Tensor& emb, const at::Tensor& context,
                                                 std::vector<at::Tensor>& skips) {
  for (const auto& block : *up_blocks) h = block->as<DiffusionUpBlockImpl>()->forward(h, emb, skips, context);
  return h;
}

}  // namespace medsynth
