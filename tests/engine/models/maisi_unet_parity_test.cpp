// Parity with MONAI's DiffusionModelUNetMaisi and ControlNetMaisi: a MONAI
// state_dict (data/*.safetensors, written by data/make_maisi_unet_reference.py
// with MONAI 1.6.1) must map onto our named_parameters() name for name and
// shape for shape, and the loaded network must reproduce MONAI's outputs for
// the stored inputs. This is what lets a user run NVIDIA's released MAISI
// weights (rflow-ct, ddpm-ct, rflow-mr and their ControlNets).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>

#include "config/controlnet_spec.hpp"
#include "core/error.hpp"
#include "models/controlnet_maisi.hpp"
#include "models/diffusion_model_unet.hpp"
#include "engine/models/monai_fixture.hpp"

namespace medsynth {
namespace {

using Tensors = std::map<std::string, at::Tensor>;

Tensors read_fixture(const std::string& name) { return test::read_monai_fixture(MEDSYNTH_MODELS_TEST_DATA, name); }
using test::expect_close;
using test::load_monai_state;

at::Tensor optional(const Tensors& f, const std::string& key) { return f.count(key) ? f.at(key) : at::Tensor(); }

UnetConditioning fixture_conditioning(const Tensors& f) {
  UnetConditioning c;
  if (f.count("io.class_labels")) c.embedding.class_labels = f.at("io.class_labels").to(at::kLong);
  c.embedding.top_region_index = optional(f, "io.top_region_index");
  c.embedding.bottom_region_index = optional(f, "io.bottom_region_index");
  c.embedding.spacing = optional(f, "io.spacing");
  c.context = optional(f, "io.context");
  return c;
}

// The small trunk every fixture shares (make_maisi_unet_reference.py TRUNK).
DiffusionUnetOptions tiny_unet(std::vector<int> num_res_blocks, std::vector<bool> attention_levels, std::vector<int> heads) {
  DiffusionUnetOptions o;
  o.in_channels = 2;
  o.out_channels = 2;
  o.channels = {4, 8, 8};
  o.norm_num_groups = 4;
  o.num_res_blocks = std::move(num_res_blocks);
  o.attention_levels = std::move(attention_levels);
  o.num_head_channels = std::move(heads);
  o.include_fc = false;  // MAISI's default
  return o;
}

void check_unet(const DiffusionUnetOptions& options, const std::string& fixture_name) {
  const auto fixture = read_fixture(fixture_name);
  DiffusionModelUNet unet(options);
  unet->eval();
  load_monai_state(*unet, fixture);
  at::NoGradGuard no_grad;
  expect_close(unet->forward(fixture.at("io.x"), fixture.at("io.t"), fixture_conditioning(fixture)), fixture.at("io.y"),
               fixture_name + " prediction");
}

// (a) rflow-ct: modality class embedding + spacing, attention without out_proj, one qkv projection.
TEST(MaisiUnetParity, RflowCtStyleClassAndSpacingWithCombinedQkv) {
  auto o = tiny_unet({2, 1, 1}, {false, true, true}, {0, 4, 4});
  o.num_class_embeds = 5;
  o.include_spacing_input = true;
  o.use_combined_linear = true;
  check_unet(o, "maisi_unet_rflow");
}

// (b) ddpm-ct: top/bottom region indices + spacing (concatenated in that order), resnet up/downsamplers.
TEST(MaisiUnetParity, DdpmCtStyleRegionIndicesAndResblockUpdown) {
  auto o = tiny_unet({1, 2, 1}, {false, false, true}, {4, 4, 4});
  o.out_channels = 1;
  o.include_top_region_index_input = true;
  o.include_bottom_region_index_input = true;
  o.include_spacing_input = true;
  o.resblock_updown = true;
  o.include_fc = true;
  check_unet(o, "maisi_unet_ddpm");
}

// (c) cross-attention transformers (2 layers, upcast, dropout inactive in eval).
TEST(MaisiUnetParity, CrossAttentionWithContext) {
  auto o = tiny_unet({1, 1, 1}, {false, true, true}, {4, 4, 3});
  o.with_conditioning = true;
  o.cross_attention_dim = 6;
  o.transformer_num_layers = 2;
  o.upcast_attention = true;
  o.use_combined_linear = true;
  o.dropout_cattn = 0.1;
  check_unet(o, "maisi_unet_cross_attention");
}

DiffusionUnetOptions controlnet_unet_options() {
  auto o = tiny_unet({1, 2, 1}, {false, true, true}, {4, 4, 4});
  o.num_class_embeds = 3;
  o.resblock_updown = true;
  o.include_fc = true;
  o.include_spacing_input = true;
  return o;
}

ControlNetMaisiOptions controlnet_options() {
  auto c = ControlNetMaisiOptions::from_unet(controlnet_unet_options());
  c.conditioning_embedding_in_channels = 3;
  c.conditioning_embedding_num_channels = {4, 8};
  return c;
}

// (d) ControlNetMaisi's residuals, scaled by conditioning_scale.
TEST(MaisiUnetParity, ControlNetResiduals) {
  const auto f = read_fixture("maisi_controlnet");
  ControlNetMaisi net(controlnet_options());
  net->eval();
  load_monai_state(*net, f);
  at::NoGradGuard no_grad;
  UnetEmbeddingInputs inputs;
  inputs.class_labels = f.at("io.class_labels").to(at::kLong);
  const double scale = f.at("io.conditioning_scale").item<double>();
  const auto r = net->forward(f.at("io.x"), f.at("io.t"), f.at("io.cond"), scale, {}, inputs);
  ASSERT_EQ(r.down_block_residuals.size(), 7u);  // conv_in + 4 resnets + 2 downsamplers
  for (std::size_t i = 0; i < r.down_block_residuals.size(); ++i)
    expect_close(r.down_block_residuals[i], f.at("io.down." + std::to_string(i)), "down residual " + std::to_string(i));
  expect_close(r.mid_block_residual, f.at("io.mid"), "mid residual");
}

// (d) The UNet fed with MONAI's residuals, then with ours: the same prediction.
TEST(MaisiUnetParity, UnetWithControlNetResiduals) {
  const auto f = read_fixture("maisi_controlnet_unet");
  DiffusionModelUNet unet(controlnet_unet_options());
  unet->eval();
  load_monai_state(*unet, f);
  at::NoGradGuard no_grad;
  auto c = fixture_conditioning(f);
  for (std::size_t i = 0; f.count("io.down." + std::to_string(i)); ++i)
    c.down_block_additional_residuals.push_back(f.at("io.down." + std::to_string(i)));
  c.mid_block_additional_residual = f.at("io.mid");
  expect_close(unet->forward(f.at("io.x"), f.at("io.t"), c), f.at("io.y"), "prediction with MONAI's residuals");

  ControlNetMaisi net(controlnet_options());
  net->eval();
  load_monai_state(*net, read_fixture("maisi_controlnet"));
  const auto r = net->forward(f.at("io.x"), f.at("io.t"), f.at("io.cond"), f.at("io.conditioning_scale").item<double>(), {},
                              c.embedding);
  c.down_block_additional_residuals = r.down_block_residuals;
  c.mid_block_additional_residual = r.mid_block_residual;
  expect_close(unet->forward(f.at("io.x"), f.at("io.t"), c), f.at("io.y"), "prediction with our residuals");
}

TEST(MaisiUnetParity, MissingInputsAndBadOptionsAreNamed) {
  auto o = tiny_unet({1, 1, 1}, {false, true, true}, {4, 4, 4});
  o.num_class_embeds = 5;
  DiffusionModelUNet unet(o);
  const auto x = at::zeros({1, 2, 8, 8, 8});
  try {
    unet->forward(x, at::zeros({1}));
    FAIL() << "a class-conditional UNet ran without class labels";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("num_class_embeds"), std::string::npos) << e.what();
  }
  o.with_conditioning = true;  // without cross_attention_dim
  try {
    DiffusionModelUNet bad(o);
    FAIL() << "with_conditioning without cross_attention_dim was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("model.diffusion_unet.cross_attention_dim"), std::string::npos) << e.what();
  }
  auto c = controlnet_options();
  c.conditioning_embedding_num_channels = {};
  EXPECT_THROW(c.validate("controlnet"), ConfigError);
}

}  // namespace
}  // namespace medsynth
