// The building blocks of DiffusionModelUNet (diffusion_model_unet.hpp) and
// ControlNetMaisi (controlnet_maisi.hpp), each in the shape of its MONAI
// counterpart so that state_dict names map one to one:
// DiffusionUNetResnetBlock (norm1/conv1/time_emb_proj/norm2/conv2/
// skip_connection, optionally resampling), the down block (resnets,
// attentions, downsampler), the mid block (resnet_1, attention, resnet_2) and
// the up block (resnets, attentions, upsampler). An attention level holds
// either spatial self-attention (AttnDownBlock...) or, with_conditioning, a
// cross-attention SpatialTransformer (CrossAttnDownBlock...).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <vector>

#include "models/spatial_transformer.hpp"
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

// What a level's attention is: none, spatial self-attention, or a
// cross-attention transformer. The channels of `transformer` are set per block.
struct UnetAttentionSpec {
  enum class Kind { none, self, cross };
  Kind kind = Kind::none;
  std::int64_t num_head_channels = 0;  // 0 with self-attention: one head
  SelfAttentionOptions self;           // include_fc, use_combined_linear (MONAI never upcasts these)
  SpatialTransformerOptions transformer;
};

// A resnet block that also resamples (MONAI's resblock_updown): nearest x2
// or 2x2x2 average pooling of both paths after norm1 + SiLU.
enum class ResnetResample { none, up, down };

// Runs an attention module built by make_unet_attention: self-attention ignores the context.
at::Tensor apply_unet_attention(torch::nn::Module& attention, const at::Tensor& h, const at::Tensor& context);

class DiffusionResnetBlockImpl : public torch::nn::Module {
 public:
  explicit DiffusionResnetBlockImpl(const UnetBlockShape& shape, ResnetResample resample = ResnetResample::none);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& emb);

  torch::nn::GroupNorm norm1{nullptr};
  Convolution conv1{nullptr};
  torch::nn::Linear time_emb_proj{nullptr};
  torch::nn::GroupNorm norm2{nullptr};
  Convolution conv2{nullptr};
  Convolution skip_connection{nullptr};  // null when in == out (MONAI's Identity)

 private:
  ResnetResample resample_;
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

// MONAI's DownBlock / AttnDownBlock / CrossAttnDownBlock: resnets (+ attention
// after each), then a downsampler unless last. Appends the skip tensors the up path consumes.
class DiffusionDownBlockImpl : public torch::nn::Module {
 public:
  DiffusionDownBlockImpl(const UnetBlockShape& shape, int num_res_blocks, const UnetAttentionSpec& attention, bool add_downsample,
                         bool resblock_updown);
  at::Tensor forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips, const at::Tensor& context = {});

  torch::nn::ModuleList resnets{nullptr};
  torch::nn::ModuleList attentions{nullptr};
  DiffusionDownsample downsampler{nullptr};
  DiffusionResnetBlock resnet_downsampler{nullptr};  // registered as "downsampler" with resblock_updown
};
TORCH_MODULE(DiffusionDownBlock);

class DiffusionMidBlockImpl : public torch::nn::Module {
 public:
  // attention.kind self or cross (MONAI's mid block always attends).
  DiffusionMidBlockImpl(const UnetBlockShape& shape, const UnetAttentionSpec& attention);
  at::Tensor forward(const at::Tensor& h, const at::Tensor& emb, const at::Tensor& context = {});

  DiffusionResnetBlock resnet_1{nullptr};
  SpatialAttentionBlock attention{nullptr};
  SpatialTransformer transformer{nullptr};  // registered as "attention" with cross-attention
  DiffusionResnetBlock resnet_2{nullptr};
};
TORCH_MODULE(DiffusionMidBlock);

// MONAI's UpBlock / AttnUpBlock / CrossAttnUpBlock: each resnet takes the
// concatenation of the running tensor and one skip (popped from the back),
// then an upsampler unless last.
class DiffusionUpBlockImpl : public torch::nn::Module {
 public:
  DiffusionUpBlockImpl(const UnetBlockShape& shape, std::int64_t prev_output_channels, int num_res_blocks,
                       const UnetAttentionSpec& attention, bool add_upsample, bool resblock_updown);
  at::Tensor forward(at::Tensor h, const at::Tensor& emb, std::vector<at::Tensor>& skips, const at::Tensor& context = {});

  torch::nn::ModuleList resnets{nullptr};
  torch::nn::ModuleList attentions{nullptr};
  DiffusionUpsample upsampler{nullptr};
  DiffusionResnetBlock resnet_upsampler{nullptr};  // registered as "upsampler" with resblock_updown
};
TORCH_MODULE(DiffusionUpBlock);

}  // namespace medsynth
