#include "models/unet_conditioning.hpp"

#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/linear.h>

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace medsynth {
namespace {

torch::nn::Sequential embedding_mlp(std::int64_t in, std::int64_t out) {
  return torch::nn::Sequential(torch::nn::Linear(in, out), torch::nn::SiLU(), torch::nn::Linear(out, out));
}

const at::Tensor& required(const at::Tensor& t, const char* option, const char* input) {
  if (!t.defined())
    throw UsageError(std::string("the diffusion UNet was built with ") + option + " and needs " + input + " per sample");
  return t;
}

}  // namespace

at::Tensor timestep_embedding(const at::Tensor& timesteps, std::int64_t dim) {
  const std::int64_t half = dim / 2;
  auto opts = at::TensorOptions().dtype(at::kFloat).device(timesteps.device());
  auto freqs = at::exp(-std::log(10000.0) * at::arange(half, opts) / static_cast<double>(half));
  auto args = timesteps.to(at::kFloat).unsqueeze(1) * freqs.unsqueeze(0);
  auto emb = at::cat({at::cos(args), at::sin(args)}, 1);
  if (dim % 2 == 1) emb = at::constant_pad_nd(emb, {0, 1, 0, 0});
  return emb;
}

void UnetEmbedding::register_on(torch::nn::Module& owner, const DiffusionUnetOptions& o, bool with_inputs) {
  base_channels_ = o.channels[0];
  const std::int64_t dim = base_channels_ * 4;
  time_embed = owner.register_module("time_embed", embedding_mlp(base_channels_, dim));
  if (o.num_class_embeds > 0) class_embedding = owner.register_module("class_embedding", torch::nn::Embedding(o.num_class_embeds, dim));
  channels_ = dim;
  if (!with_inputs) return;
  auto add = [&](const char* name, std::int64_t in) {
    channels_ += dim;
    return owner.register_module(name, embedding_mlp(in, dim));
  };
  if (o.include_top_region_index_input) top_region_index_layer = add("top_region_index_layer", 4);
  if (o.include_bottom_region_index_input) bottom_region_index_layer = add("bottom_region_index_layer", 4);
  if (o.include_spacing_input) spacing_layer = add("spacing_layer", 3);
}

at::Tensor UnetEmbedding::forward(const at::Tensor& x, const at::Tensor& timesteps, const UnetEmbeddingInputs& in) {
  const auto dtype = x.scalar_type();
  auto emb = time_embed->forward(timestep_embedding(timesteps, base_channels_).to(dtype));
  if (class_embedding)
    emb = emb + class_embedding->forward(required(in.class_labels, "num_class_embeds", "class_labels").to(at::kLong)).to(dtype);
  // MONAI's order: time (+ class), top region, bottom region, spacing.
  std::vector<at::Tensor> parts{emb};
  if (top_region_index_layer)
    parts.push_back(top_region_index_layer->forward(required(in.top_region_index, "include_top_region_index_input", "a top region index").to(dtype)));
  if (bottom_region_index_layer)
    parts.push_back(bottom_region_index_layer->forward(
        required(in.bottom_region_index, "include_bottom_region_index_input", "a bottom region index").to(dtype)));
  if (spacing_layer) parts.push_back(spacing_layer->forward(required(in.spacing, "include_spacing_input", "a spacing").to(dtype)));
  return parts.size() == 1 ? emb : at::cat(parts, 1);
}

}  // namespace medsynth
