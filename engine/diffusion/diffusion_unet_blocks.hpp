// The building blocks of DiffusionModelUNet (diffusion_model_unet.hpp), each
// in the shape of its MONAI counterpart so that state_dict names map one to
// one: DiffusionUNetResnetBlock (norm1/conv1/time_emb_proj/norm2/conv2/
// skip_connection), the down block (resnets, attentions, downsampler.op), the
// attention mid block (resnet_1, attention, resnet_2) and the up block
// (resnets, attentions, upsampler.postconv). Only the self-attention variant
// is built: MAISI's UNet has no cross-attention.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <vector>

#include "models/convolution.hpp"
#include "models/spatial_attention.hpp"

namespace medsynth {

struct UnetBlockShape {
  std::int64_t in_channels = 0;
  std::int64_t out_channels = 0;
  std::int64_t temb_channels = 0;
  std::int64_t norm_num_groups = 32;
  double norm_eps = 1e-6;
};

class DiffusionResnetBlockImpl : public torch::nn::Module {
 public:
  explicit DiffusionResnetBlockImpl(const UnetBlockShape& shape);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& emb);

  torch::nn::GroupNorm norm1{nullptr};
  Convolution conv1{nullptr};
  torch::nn::Linear time_emb_proj{nullptr};
  torch::nn::GroupNorm norm2{nullptr};
  Convolution conv2{nullptr};
  Convolution skip_connection{nullptr};  // null when in == out (MONAI's Identity)
};
TORCH_MODULE(DiffusionResnetBlock);

// Strided 3x3x3 convolution, registered as `op` (DiffusionUnetDownsample).
class DiffusionDownsampleImpl : public torch::nn::Module {
 public:
  explicit DiffusionDownsampleImpl(std::int64_t channels);
  at::Tensor forward(const at::Tensor& x) { return op->forward(x); }
  Convolution op{nullptr};
};
TORCH_MODULE(DiffusionDownsample);

// Nearest x2 then a 3x3x3 convolution `postconv` (MONAI's UpSample "nontrainable").
class DiffusionUpsampleImpl : public torch::nn::Module {
 public:
  explicit DiffusionUpsampleImpl(std::int64_t channels);
  at::Tensor forward(const at::Tensor& x);
  Convolution postconv{nullptr};
};
TORCH_MODULE(DiffusionUpsample);

// MONAI's DownBlock / AttnDownBlock: resnets (+ attention after each), then a
// downsampler unless last. Returns the skip tensors the up path consumes.
class DiffusionDownBlockImpl : public torch::nn::Module {
 public:
  DiffusionDownBlockImpl(const UnetBlockShape& shape, int num_res_blocks, bool with_attention, std::int64_t num_head_channels,
                         bool add_downsample);
  at::Tensor forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips);

  torch::nn::ModuleList resnets{nullptr};
  torch::nn::ModuleList attentions{nullptr};
  DiffusionDownsample downsampler{nullptr};
};
TORCH_MODULE(DiffusionDownBlock);

class DiffusionMidBlockImpl : public torch::nn::Module {
 public:
  DiffusionMidBlockImpl(const UnetBlockShape& shape, std::int64_t num_head_channels);
  at::Tensor forward(const at::Tensor& h, const at::Tensor& emb);

  DiffusionResnetBlock resnet_1{nullptr};
  SpatialAttentionBlock attention{nullptr};
  DiffusionResnetBlock resnet_2{nullptr};
};
TORCH_MODULE(DiffusionMidBlock);

// MONAI's UpBlock / AttnUpBlock: each resnet takes the concatenation of the
// running tensor and one skip (popped from the back), then an upsampler unless last.
class DiffusionUpBlockImpl : public torch::nn::Module {
 public:
  DiffusionUpBlockImpl(const UnetBlockShape& shape, std::int64_t prev_output_channels, int num_res_blocks, bool with_attention,
                       std::int64_t num_head_channels, bool add_upsample);
  at::Tensor forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips);

  torch::nn::ModuleList resnets{nullptr};
  torch::nn::ModuleList attentions{nullptr};
  DiffusionUpsample upsampler{nullptr};
};
TORCH_MODULE(DiffusionUpBlock);

}  // namespace medsynth
