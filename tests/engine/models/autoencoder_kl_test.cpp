// AutoencoderKL: shapes, MONAI parameter names, a parameter count derived
// here from MONAI's architecture, the log-variance clamp, sampling and
// gradients.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <regex>
#include <string>

#include "config/job_spec.hpp"
#include "core/error.hpp"
#include "models/autoencoder_kl.hpp"
#include "metrics/losses.hpp"

namespace medsynth {
namespace {

AutoencoderKLOptions small_options() {
  AutoencoderKLOptions o;
  o.num_channels = {8, 16, 16};
  o.num_res_blocks = {1, 1, 1};
  o.attention_levels = {false, false, false};
  o.norm_num_groups = 4;
  o.latent_channels = 4;
  return o;
}

AutoencoderKLOptions attention_options() {
  auto o = small_options();
  o.num_res_blocks = {1, 2, 1};
  o.attention_levels = {false, true, true};
  o.with_encoder_nonlocal_attn = true;
  o.with_decoder_nonlocal_attn = true;
  o.use_convtranspose = true;
  return o;
}

// Parameter count of MONAI's AutoencoderKL, from its layer list.
std::int64_t conv(std::int64_t k, std::int64_t cin, std::int64_t cout) { return k * k * k * cin * cout + cout; }
std::int64_t gn(std::int64_t c) { return 2 * c; }
std::int64_t res(std::int64_t cin, std::int64_t cout) {
  return gn(cin) + conv(3, cin, cout) + gn(cout) + conv(3, cout, cout) + (cin != cout ? conv(1, cin, cout) : 0);
}
std::int64_t attn(std::int64_t c) { return gn(c) + 4 * (c * c + c); }  // norm + q, k, v, out_proj
std::int64_t expected_parameters(const AutoencoderKLOptions& o) {
  const auto& ch = o.num_channels;
  const std::int64_t levels = static_cast<std::int64_t>(ch.size()), top = ch.back(), L = o.latent_channels;
  std::int64_t n = conv(3, o.in_channels, ch[0]);  // encoder
  std::int64_t c = ch[0];
  for (std::int64_t i = 0; i < levels; ++i) {
    for (int r = 0; r < o.num_res_blocks[i]; ++r) {
      n += res(c, ch[i]) + (o.attention_levels[i] ? attn(ch[i]) : 0);
      c = ch[i];
    }
    if (i + 1 < levels) n += conv(3, c, c);  // downsample
  }
  if (o.with_encoder_nonlocal_attn) n += 2 * res(top, top) + attn(top);
  n += gn(top) + conv(3, top, L);
  n += 3 * conv(1, L, L);                         // quant_conv_mu, quant_conv_log_sigma, post_quant_conv
  n += conv(3, L, top);                           // decoder
  if (o.with_decoder_nonlocal_attn) n += 2 * res(top, top) + attn(top);
  c = top;
  for (std::int64_t i = levels - 1; i >= 0; --i) {
    for (int r = 0; r < o.num_res_blocks[i]; ++r) {
      n += res(c, ch[i]) + (o.attention_levels[i] ? attn(ch[i]) : 0);
      c = ch[i];
    }
    if (i > 0) n += o.use_convtranspose ? 8 * c * c + c : conv(3, c, c);  // upsample
  }
  n += gn(c) + conv(3, c, o.out_channels);
  return n;
}

std::int64_t count_parameters(torch::nn::Module& m) {
  std::int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

std::map<std::string, at::Tensor> parameter_map(torch::nn::Module& m) {
  std::map<std::string, at::Tensor> out;
  for (const auto& item : m.named_parameters()) out[item.key()] = item.value();
  return out;
}

std::vector<std::int64_t> shape(const at::Tensor& t) { return t.sizes().vec(); }

TEST(AutoencoderKL, ShapesOfSmallConfig) {
  at::manual_seed(0);
  AutoencoderKL ae(small_options());
  const auto x = at::rand({2, 1, 32, 32, 32});
  const auto [mu, logvar] = ae->encode(x);
  EXPECT_EQ(shape(mu), (std::vector<std::int64_t>{2, 4, 8, 8, 8}));
  EXPECT_EQ(shape(logvar), shape(mu));
  const auto out = ae->forward(x);
  EXPECT_EQ(shape(out.reconstruction), shape(x));
  EXPECT_EQ(shape(out.z_mu), (std::vector<std::int64_t>{2, 4, 8, 8, 8}));
  EXPECT_TRUE(at::allclose(out.z_sigma, at::exp(0.5 * out.z_log_var)));
  EXPECT_EQ(shape(ae->reconstruct(x)), shape(x));
  EXPECT_EQ(ae->options().compression(), 4);
}

TEST(AutoencoderKL, AttentionConfigShapes) {
  at::manual_seed(0);
  AutoencoderKL ae(attention_options());
  const auto x = at::rand({1, 1, 16, 16, 16});
  const auto out = ae->forward(x);
  EXPECT_EQ(shape(out.z_mu), (std::vector<std::int64_t>{1, 4, 4, 4, 4}));
  EXPECT_EQ(shape(out.reconstruction), shape(x));
}

TEST(AutoencoderKL, ParameterCountMatchesMonaiFormula) {
  for (const auto& o : {small_options(), attention_options()}) {
    AutoencoderKL ae(o);
    EXPECT_EQ(count_parameters(*ae), expected_parameters(o));
  }
  EXPECT_NE(expected_parameters(small_options()), expected_parameters(attention_options()));
}

TEST(AutoencoderKL, ParameterNamesMirrorMonai) {
  AutoencoderKL ae(small_options());
  const auto p = parameter_map(*ae);
  // Encoder: 0 conv, 1 res(8,8), 2 down, 3 res(8,16), 4 down, 5 res(16,16), 6 norm, 7 conv.
  // Decoder: 0 conv, 1 res, 2 up, 3 res, 4 up, 5 res(16,8), 6 norm, 7 conv.
  const std::map<std::string, std::vector<std::int64_t>> expected{
      {"encoder.blocks.0.conv.weight", {8, 1, 3, 3, 3}},
      {"encoder.blocks.1.norm1.weight", {8}},
      {"encoder.blocks.1.conv1.conv.weight", {8, 8, 3, 3, 3}},
      {"encoder.blocks.1.norm2.bias", {8}},
      {"encoder.blocks.1.conv2.conv.bias", {8}},
      {"encoder.blocks.2.conv.conv.weight", {8, 8, 3, 3, 3}},
      {"encoder.blocks.3.nin_shortcut.conv.weight", {16, 8, 1, 1, 1}},
      {"encoder.blocks.6.weight", {16}},
      {"encoder.blocks.7.conv.weight", {4, 16, 3, 3, 3}},
      {"quant_conv_mu.conv.weight", {4, 4, 1, 1, 1}},
      {"quant_conv_log_sigma.conv.bias", {4}},
      {"post_quant_conv.conv.weight", {4, 4, 1, 1, 1}},
      {"decoder.blocks.0.conv.weight", {16, 4, 3, 3, 3}},
      {"decoder.blocks.2.postconv.conv.weight", {16, 16, 3, 3, 3}},
      {"decoder.blocks.5.nin_shortcut.conv.weight", {8, 16, 1, 1, 1}},
      {"decoder.blocks.6.weight", {8}},
      {"decoder.blocks.7.conv.weight", {1, 8, 3, 3, 3}},
  };
  for (const auto& [name, dims] : expected) {
    ASSERT_TRUE(p.count(name)) << name;
    EXPECT_EQ(shape(p.at(name)), dims) << name;
  }
  EXPECT_FALSE(p.count("encoder.blocks.1.nin_shortcut.conv.weight"));  // same channels: identity
  // Every name has one of MONAI's shapes.
  const std::regex monai(
      R"((encoder|decoder)\.blocks\.\d+\.((conv|conv1\.conv|conv2\.conv|nin_shortcut\.conv|conv\.conv|postconv\.conv|)\.?(weight|bias)|(norm1|norm2)\.(weight|bias))|(quant_conv_mu|quant_conv_log_sigma|post_quant_conv)\.conv\.(weight|bias))");
  for (const auto& [name, t] : p) EXPECT_TRUE(std::regex_match(name, monai)) << name;
}

TEST(AutoencoderKL, AttentionAndDeconvNamesMirrorMonai) {
  AutoencoderKL ae(attention_options());
  const auto p = parameter_map(*ae);
  // Encoder: 0 conv, 1 res, 2 down, 3 res(8,16), 4 attn, 5 res, 6 attn, 7 down, 8 res, 9 attn,
  // then non-local 10 res, 11 attn, 12 res.
  for (const std::string name :
       {"encoder.blocks.4.norm.weight", "encoder.blocks.4.attn.to_q.weight", "encoder.blocks.4.attn.to_k.bias",
        "encoder.blocks.4.attn.to_v.weight", "encoder.blocks.4.attn.out_proj.weight", "encoder.blocks.11.attn.to_q.bias",
        "encoder.blocks.12.conv2.conv.weight", "decoder.blocks.2.attn.to_q.weight", "decoder.blocks.3.norm1.weight"}) {
    EXPECT_TRUE(p.count(name)) << name;
  }
  EXPECT_EQ(shape(p.at("encoder.blocks.4.attn.to_q.weight")), (std::vector<std::int64_t>{16, 16}));
  // Decoder: 0 conv, 1-3 non-local, 4 res, 5 attn, 6 deconv, ...
  ASSERT_TRUE(p.count("decoder.blocks.6.deconv.weight"));
  EXPECT_EQ(shape(p.at("decoder.blocks.6.deconv.weight")), (std::vector<std::int64_t>{16, 16, 2, 2, 2}));
}

TEST(AutoencoderKL, LogVarianceIsClamped) {
  AutoencoderKL ae(small_options());
  const auto x = at::rand({1, 1, 16, 16, 16});
  for (double bias : {1000.0, -1000.0}) {
    {
      at::NoGradGuard no_grad;
      ae->quant_conv_log_sigma->conv->bias.fill_(bias);
    }
    const auto out = ae->forward(x);
    const double expected = bias > 0 ? 20.0 : -30.0;
    EXPECT_DOUBLE_EQ(out.z_log_var.min().item<double>(), expected);
    EXPECT_DOUBLE_EQ(out.z_log_var.max().item<double>(), expected);
    EXPECT_TRUE(at::isfinite(out.z_sigma).all().item<bool>());
    EXPECT_TRUE(std::isfinite(kl_loss(out.z_mu, out.z_log_var).item<double>()));
  }
}

TEST(AutoencoderKL, ClampRangeComesFromOptions) {
  auto o = small_options();
  o.logvar_min = -2.0;
  o.logvar_max = -1.0;
  AutoencoderKL ae(o);
  const auto [mu, logvar] = ae->encode(at::rand({1, 1, 8, 8, 8}) * 100.0);
  EXPECT_GE(logvar.min().item<double>(), -2.0);
  EXPECT_LE(logvar.max().item<double>(), -1.0);
}

TEST(AutoencoderKL, SamplingFollowsTheGlobalGeneratorAndReconstructIsDeterministic) {
  at::manual_seed(1);
  AutoencoderKL ae(small_options());
  const auto x = at::rand({1, 1, 16, 16, 16});
  at::manual_seed(7);
  const auto a = ae->forward(x).reconstruction;
  at::manual_seed(7);
  const auto b = ae->forward(x).reconstruction;
  const auto c = ae->forward(x).reconstruction;
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::equal(b, c));
  const auto r1 = ae->reconstruct(x);
  const auto r2 = ae->reconstruct(x);
  EXPECT_TRUE(at::equal(r1, r2));
  EXPECT_TRUE(at::allclose(r1, ae->decode(ae->encode(x).first)));

  // sample(): mu + eps * exp(logvar / 2), eps drawn from the global generator.
  const auto mu = at::full({2, 4, 2, 2, 2}, 3.0), logvar = at::full({2, 4, 2, 2, 2}, std::log(4.0));
  at::manual_seed(11);
  const auto eps = at::randn_like(mu);
  at::manual_seed(11);
  EXPECT_TRUE(at::allclose(ae->sample(mu, logvar), mu + 2.0 * eps));
}

TEST(AutoencoderKL, BackwardReachesEveryParameter) {
  at::manual_seed(3);
  AutoencoderKL ae(attention_options());
  const auto x = at::rand({1, 1, 16, 16, 16});
  const auto out = ae->forward(x);
  const auto loss = reconstruction_loss(out.reconstruction, x, "l1") + kl_loss(out.z_mu, out.z_log_var);
  loss.backward();
  for (const auto& item : ae->named_parameters()) {
    const auto& g = item.value().grad();
    ASSERT_TRUE(g.defined()) << item.key();
    EXPECT_TRUE(at::isfinite(g).all().item<bool>()) << item.key();
    EXPECT_GT(g.abs().sum().item<double>(), 0.0) << item.key();
  }
}

TEST(AutoencoderKL, RejectsBadInputs) {
  AutoencoderKL ae(small_options());
  EXPECT_THROW(ae->encode(at::rand({1, 1, 18, 16, 16})), UsageError);  // not a multiple of 4
  EXPECT_THROW(ae->encode(at::rand({1, 2, 16, 16, 16})), UsageError);  // channels
  EXPECT_THROW(ae->encode(at::rand({1, 16, 16, 16})), UsageError);     // no batch axis
  EXPECT_THROW(ae->decode(at::rand({1, 3, 4, 4, 4})), UsageError);     // latent channels
}

std::string validation_message(const AutoencoderKLOptions& o) {
  try {
    o.validate();
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

TEST(AutoencoderKLOptions, ValidateNamesTheField) {
  auto o = small_options();
  o.num_channels = {8, 10, 16};  // 10 is no multiple of 4 groups
  EXPECT_NE(validation_message(o).find("model.autoencoder.num_channels: every entry must be divisible"),
            std::string::npos);
  o = small_options();
  o.num_res_blocks = {1, 1};
  EXPECT_NE(validation_message(o).find("model.autoencoder.num_res_blocks"), std::string::npos);
  o = small_options();
  o.attention_levels = {false};
  EXPECT_NE(validation_message(o).find("model.autoencoder.attention_levels"), std::string::npos);
  o = small_options();
  o.spatial_dims = 2;
  EXPECT_NE(validation_message(o).find("model.autoencoder.spatial_dims"), std::string::npos);
  o = small_options();
  o.logvar_min = 5.0;
  o.logvar_max = 5.0;
  EXPECT_NE(validation_message(o).find("loss.logvar_clamp"), std::string::npos);
  EXPECT_TRUE(validation_message(small_options()).empty());
  o = small_options();
  o.norm_num_groups = 3;
  EXPECT_THROW(AutoencoderKL{o}, UsageError);  // the constructor validates
}

// The job holds the network's options (model.autoencoder); from_spec adds
// the loss's log-variance clamp and changes nothing else.
TEST(AutoencoderKLOptions, FromSpecTakesTheClampFromTheLoss) {
  AutoencoderKLOptions spec = small_options();
  spec.use_convtranspose = true;
  LossSpec loss;
  loss.logvar_clamp = {-10.0, 5.0};
  const auto o = AutoencoderKLOptions::from_spec(spec, loss);
  EXPECT_DOUBLE_EQ(o.logvar_min, -10.0);
  EXPECT_DOUBLE_EQ(o.logvar_max, 5.0);
  auto unclamped = o;
  unclamped.logvar_min = spec.logvar_min;
  unclamped.logvar_max = spec.logvar_max;
  EXPECT_EQ(unclamped, spec);
  const auto defaults = AutoencoderKLOptions::from_spec(JobSpec{}.model.autoencoder, LossSpec{});
  EXPECT_DOUBLE_EQ(defaults.logvar_min, -30.0);
  EXPECT_DOUBLE_EQ(defaults.logvar_max, 20.0);
  EXPECT_NO_THROW(defaults.validate());
}

}  // namespace
}  // namespace medsynth
