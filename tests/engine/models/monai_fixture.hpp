// MONAI parity fixtures (data/*.safetensors made by the make_*_reference.py
// scripts): a MONAI state_dict under MONAI's names plus "io.*" tensors.
// Shared by the parity tests of engine/models and engine/diffusion.
#pragma once

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/nn/module.h>

#include <map>
#include <string>

#include "config/diffusion_spec.hpp"
#include "config/autoencoder_kl_options.hpp"
#include "state/tensor_file.hpp"

namespace medsynth::test {

inline std::map<std::string, at::Tensor> read_monai_fixture(const std::string& folder, const std::string& name) {
  return read_tensor_file(folder + "/" + name + ".safetensors").tensors;
}

// Copies every non-"io." tensor onto the parameter of the same name; fails the
// test on a name or shape that does not match, in either direction.
inline void load_monai_state(torch::nn::Module& model, const std::map<std::string, at::Tensor>& fixture) {
  auto params = model.named_parameters();
  std::size_t loaded = 0;
  at::NoGradGuard no_grad;
  for (const auto& [name, tensor] : fixture) {
    if (name.rfind("io.", 0) == 0) continue;
    auto* p = params.find(name);
    ASSERT_NE(p, nullptr) << "MONAI parameter without a counterpart: " << name;
    ASSERT_EQ(p->sizes(), tensor.sizes()) << name;
    p->copy_(tensor);
    ++loaded;
  }
  for (const auto& item : params)
    EXPECT_TRUE(fixture.count(item.key())) << "parameter that MONAI does not have: " << item.key();
  EXPECT_EQ(loaded, params.size());
}

// The diffusion UNet of the fixture "monai_diffusion_unet" (attention at the
// two coarse levels), as make_monai_reference.py builds it.
// The network of the fixture "monai_autoencoder_attention": attention at the
// second level and in both non-local blocks (CPU and GPU parity tests).
inline AutoencoderKLOptions monai_autoencoder_attention_options() {
  AutoencoderKLOptions o;
  o.norm_num_groups = 4;
  o.latent_channels = 2;
  o.num_channels = {4, 8};
  o.num_res_blocks = {1, 1};
  o.attention_levels = {false, true};
  o.with_encoder_nonlocal_attn = true;
  o.with_decoder_nonlocal_attn = true;
  return o;
}

inline DiffusionUnetOptions monai_diffusion_unet_options() {
  DiffusionUnetOptions o;
  o.in_channels = 2;
  o.out_channels = 2;
  o.channels = {8, 16, 16};
  o.num_res_blocks = {1, 1, 1};
  o.attention_levels = {false, true, true};
  o.num_head_channels = {8, 16, 16};
  o.norm_num_groups = 4;
  return o;
}

inline void expect_close(const at::Tensor& ours, const at::Tensor& monai, const std::string& what) {
  ASSERT_EQ(ours.sizes(), monai.sizes()) << what;
  EXPECT_TRUE(at::allclose(ours, monai, /*rtol=*/1e-4, /*atol=*/1e-5))
      << what << ": max difference " << (ours - monai).abs().max().item<double>();
}

}  // namespace medsynth::test
