// PatchDiscriminator: output grid, MONAI names, parameter count, init, checks.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <map>
#include <string>

#include "core/error.hpp"
#include "config/job_spec.hpp"
#include "models/patch_discriminator.hpp"

namespace medsynth {
namespace {

PatchDiscriminatorOptions small(DiscriminatorNorm norm = DiscriminatorNorm::instance) {
  PatchDiscriminatorOptions o;
  o.channels = 8;
  o.num_layers_d = 3;
  o.norm = norm;
  o.norm_num_groups = 4;
  return o;
}

std::map<std::string, at::Tensor> parameter_map(torch::nn::Module& m) {
  std::map<std::string, at::Tensor> out;
  for (const auto& item : m.named_parameters()) out[item.key()] = item.value();
  return out;
}

std::int64_t count_parameters(torch::nn::Module& m) {
  std::int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

TEST(PatchDiscriminator, OutputGrid) {
  PatchDiscriminator d(small());
  // kernel 4, padding 1: 32 -(s2)-> 16 -(s2)-> 8 -(s2)-> 4 -(s1)-> 3 -(final, s1)-> 2
  const auto y = d->forward(at::rand({2, 1, 32, 32, 32}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{2, 1, 2, 2, 2}));
  EXPECT_EQ(d->options().output_size(32), 2);
  const auto feats = d->features(at::rand({1, 1, 32, 48, 64}));
  ASSERT_EQ(feats.size(), 5u);  // initial, 3 layers, final
  EXPECT_EQ(feats[0].sizes().vec(), (std::vector<std::int64_t>{1, 8, 16, 24, 32}));
  EXPECT_EQ(feats[3].sizes().vec(), (std::vector<std::int64_t>{1, 64, 3, 5, 7}));
  EXPECT_EQ(feats.back().sizes().vec(), (std::vector<std::int64_t>{1, 1, 2, 4, 6}));
}

TEST(PatchDiscriminator, NamesAndCountMirrorMonai) {
  const std::int64_t k3 = 4 * 4 * 4;
  // instance norm has no parameters; hidden convs have no bias.
  const std::int64_t convs = (k3 * 1 * 8 + 8) + k3 * 8 * 16 + k3 * 16 * 32 + k3 * 32 * 64 + (k3 * 64 * 1 + 1);
  {
    PatchDiscriminator d(small());
    const auto p = parameter_map(*d);
    for (const std::string name : {"initial_conv.conv.weight", "initial_conv.conv.bias", "0.conv.weight",
                                   "1.conv.weight", "2.conv.weight", "final_conv.conv.weight", "final_conv.conv.bias"})
      EXPECT_TRUE(p.count(name)) << name;
    EXPECT_FALSE(p.count("0.conv.bias"));
    EXPECT_EQ(p.at("2.conv.weight").sizes().vec(), (std::vector<std::int64_t>{64, 32, 4, 4, 4}));
    EXPECT_EQ(count_parameters(*d), convs);
  }
  {
    PatchDiscriminator d(small(DiscriminatorNorm::group));
    const auto p = parameter_map(*d);
    EXPECT_TRUE(p.count("0.adn.N.weight"));
    EXPECT_TRUE(p.count("2.adn.N.bias"));
    EXPECT_EQ(count_parameters(*d), convs + 2 * (16 + 32 + 64));
  }
}

TEST(PatchDiscriminator, InitialisesLikeMonaiNormalInit) {
  at::manual_seed(0);
  PatchDiscriminator d(small());
  const auto p = parameter_map(*d);
  const double std = p.at("2.conv.weight").std().item<double>();  // 131072 samples
  EXPECT_NEAR(std, 0.02, 0.001);
  EXPECT_NEAR(p.at("2.conv.weight").mean().item<double>(), 0.0, 0.001);
  EXPECT_EQ(p.at("initial_conv.conv.bias").abs().sum().item<double>(), 0.0);
  EXPECT_EQ(p.at("final_conv.conv.bias").abs().sum().item<double>(), 0.0);
}

TEST(PatchDiscriminator, GradientsReachInputAndParameters) {
  PatchDiscriminator d(small(DiscriminatorNorm::group));
  auto x = at::rand({1, 1, 32, 32, 32}).requires_grad_(true);
  d->forward(x).square().mean().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_GT(x.grad().abs().sum().item<double>(), 0.0);
  for (const auto& item : d->named_parameters()) {
    ASSERT_TRUE(item.value().grad().defined()) << item.key();
    EXPECT_GT(item.value().grad().abs().sum().item<double>(), 0.0) << item.key();
  }
}

TEST(PatchDiscriminator, RejectsTooSmallInputsAndBadOptions) {
  PatchDiscriminator d(small());
  EXPECT_EQ(d->options().output_size(8), 0);  // 8 -> 4 -> 2 -> 1 -> 0
  EXPECT_THROW(d->forward(at::rand({1, 1, 8, 32, 32})), UsageError);
  EXPECT_THROW(d->forward(at::rand({1, 2, 32, 32, 32})), UsageError);
  auto o = small(DiscriminatorNorm::group);
  o.norm_num_groups = 3;
  try {
    o.validate();
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("model.discriminator.norm_num_groups"), std::string::npos);
  }
  o = small();
  o.channels = 0;
  EXPECT_THROW(PatchDiscriminator{o}, UsageError);
}

// The job's model.discriminator section is the network's options plus
// start_step: the network takes it as it is, and its checks name job paths.
TEST(PatchDiscriminator, TheJobSectionIsTheNetworksOptions) {
  DiscriminatorSpec spec;
  spec.num_layers_d = 2;
  spec.channels = 16;
  spec.start_step = 100;
  const PatchDiscriminatorOptions o = spec;
  EXPECT_EQ(o.num_layers_d, 2);
  EXPECT_EQ(o.channels, 16);
  EXPECT_EQ(o.kernel_size, 4);
  EXPECT_NO_THROW(o.validate());
  spec.num_layers_d = 9;  // its row: 1 to 8
  const auto problems = spec.problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].path, "model.discriminator.num_layers_d");
}

}  // namespace
}  // namespace medsynth
