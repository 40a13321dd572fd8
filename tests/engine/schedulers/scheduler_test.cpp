// The schedulers against closed forms worked out here from the betas, and
// full sampling loops driven by an oracle network that knows the clean image.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "config/job_enums.hpp"
#include "schedulers/diffusion_scheduler.hpp"

namespace medsynth {
namespace {

// alphas_cumprod by hand, in double, independent of the library's tensor code.
std::vector<double> cumulative_alphas(int T, double b0, double b1, bool scaled) {
  std::vector<double> out;
  double prod = 1.0;
  for (int t = 0; t < T; ++t) {
    double beta = scaled ? std::pow(std::sqrt(b0) + (std::sqrt(b1) - std::sqrt(b0)) * t / (T - 1), 2.0) : b0 + (b1 - b0) * t / (T - 1);
    prod *= 1.0 - beta;
    out.push_back(prod);
  }
  return out;
}

SchedulerOptions options(const std::string& kind, const std::string& prediction = "epsilon") {
  SchedulerOptions o;
  o.kind = parse_enum<SchedulerKind>(kind).value();
  o.prediction_type = parse_enum<PredictionType>(prediction).value();
  o.num_inference_steps = kind == "ddpm" ? 1000 : (kind == "ddim" ? 50 : 30);
  return o;
}

at::Tensor randn(std::vector<std::int64_t> shape, std::uint64_t seed) {
  auto g = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, g, at::TensorOptions().dtype(at::kDouble));
}

TEST(Scheduler, DdpmAddNoiseMatchesClosedFormForBothBetaSchedules) {
  for (const bool scaled : {true, false}) {
    auto o = options("ddpm");
    o.noise.beta_schedule = scaled ? BetaSchedule::scaled_linear_beta : BetaSchedule::linear_beta;
    o.noise.beta_start = scaled ? 0.0015 : 1e-4;
    o.noise.beta_end = scaled ? 0.0195 : 0.02;
    auto s = make_scheduler(o);
    const auto ab = cumulative_alphas(1000, o.noise.beta_start, o.noise.beta_end, scaled);
    auto x0 = randn({3, 1, 2, 2, 2}, 1), eps = randn({3, 1, 2, 2, 2}, 2);
    auto t = at::tensor(std::vector<double>{0, 499, 999}, at::kDouble);
    auto xt = s->add_noise(x0, eps, t);
    for (int i = 0; i < 3; ++i) {
      const double a = ab[static_cast<std::size_t>(t[i].item<double>())];
      auto expected = std::sqrt(a) * x0[i] + std::sqrt(1 - a) * eps[i];
      EXPECT_TRUE(at::allclose(xt[i], expected, 1e-10, 1e-12)) << "t=" << t[i].item<double>() << " scaled=" << scaled;
    }
  }
}

TEST(Scheduler, TrainingTargetsFollowPredictionType) {
  auto x0 = randn({2, 1, 2, 2, 2}, 3), eps = randn({2, 1, 2, 2, 2}, 4);
  auto t = at::tensor(std::vector<double>{10, 700}, at::kDouble);
  const auto ab = cumulative_alphas(1000, 0.0015, 0.0195, true);
  EXPECT_TRUE(at::equal(make_scheduler(options("ddpm", "epsilon"))->training_target(x0, eps, t), eps));
  EXPECT_TRUE(at::equal(make_scheduler(options("ddpm", "sample"))->training_target(x0, eps, t), x0));
  auto v = make_scheduler(options("ddpm", "v_prediction"))->training_target(x0, eps, t);
  for (int i = 0; i < 2; ++i) {
    const double a = ab[static_cast<std::size_t>(t[i].item<double>())];
    EXPECT_TRUE(at::allclose(v[i], std::sqrt(a) * eps[i] - std::sqrt(1 - a) * x0[i], 1e-10, 1e-12));
  }
  EXPECT_TRUE(at::allclose(make_scheduler(options("rflow"))->training_target(x0, eps, t), x0 - eps));
}

TEST(Scheduler, DdpmStepIsThePosteriorMeanPlusScaledNoise) {
  auto s = make_scheduler(options("ddpm"));
  const auto ab = cumulative_alphas(1000, 0.0015, 0.0195, true);
  auto x0 = randn({1, 1, 2, 2, 2}, 5), eps = randn({1, 1, 2, 2, 2}, 6), z = randn({1, 1, 2, 2, 2}, 7);
  const int t = 600, prev = 599;
  auto xt = s->add_noise(x0, eps, at::tensor(std::vector<double>{t}, at::kDouble));
  const double a = ab[t], ap = ab[prev], alpha = a / ap, beta = 1 - alpha;
  auto mean = std::sqrt(ap) * beta / (1 - a) * x0 + std::sqrt(alpha) * (1 - ap) / (1 - a) * xt;
  const double var = (1 - ap) / (1 - a) * beta;
  auto got = s->step(eps, t, prev, xt, z);
  EXPECT_TRUE(at::allclose(got, mean + std::sqrt(var) * z, 1e-9, 1e-11));
  // The last step returns the predicted clean image without noise.
  auto x1 = s->add_noise(x0, eps, at::tensor(std::vector<double>{0}, at::kDouble));
  EXPECT_TRUE(at::allclose(s->step(eps, 0, -1, x1, z), x0, 1e-9, 1e-11));
}

TEST(Scheduler, DdimStepLandsOnTheForwardProcessAtTheNextTimestep) {
  for (const std::string pred : {"epsilon", "sample", "v_prediction"}) {
    auto s = make_scheduler(options("ddim", pred));
    const auto ab = cumulative_alphas(1000, 0.0015, 0.0195, true);
    auto x0 = randn({1, 1, 3, 2, 2}, 8), eps = randn({1, 1, 3, 2, 2}, 9);
    const double t = 980, next = 960;
    auto tt = at::tensor(std::vector<double>{t}, at::kDouble);
    auto xt = s->add_noise(x0, eps, tt);
    auto out = s->training_target(x0, eps, tt);  // what a perfect network outputs
    auto got = s->step(out, t, next, xt, at::Tensor());
    auto expected = std::sqrt(ab[960]) * x0 + std::sqrt(1 - ab[960]) * eps;
    EXPECT_TRUE(at::allclose(got, expected, 1e-8, 1e-10)) << pred;
  }
}

TEST(Scheduler, RectifiedFlowInterpolatesAndStepsAlongTheVelocity) {
  auto o = options("rflow");
  o.use_timestep_transform = false;
  auto s = make_scheduler(o);
  auto x0 = randn({2, 1, 2, 2, 2}, 10), eps = randn({2, 1, 2, 2, 2}, 11);
  auto t = at::tensor(std::vector<double>{250, 1000}, at::kDouble);
  auto xt = s->add_noise(x0, eps, t);
  EXPECT_TRUE(at::allclose(xt[0], 0.75 * x0[0] + 0.25 * eps[0]));
  EXPECT_TRUE(at::allclose(xt[1], eps[1]));
  auto x = s->add_noise(x0.narrow(0, 0, 1), eps.narrow(0, 0, 1), at::tensor(std::vector<double>{800}, at::kDouble));
  auto stepped = s->step(x0.narrow(0, 0, 1) - eps.narrow(0, 0, 1), 800, 300, x, at::Tensor());
  EXPECT_TRUE(at::allclose(stepped, 0.7 * x0.narrow(0, 0, 1) + 0.3 * eps.narrow(0, 0, 1), 1e-9, 1e-11));
  const auto ts = s->inference_timesteps(0);
  ASSERT_EQ(ts.size(), 30u);
  EXPECT_DOUBLE_EQ(ts.front(), 1000.0);
  EXPECT_NEAR(ts.back(), 1000.0 / 30.0, 1e-9);
}

TEST(Scheduler, RectifiedFlowShiftMovesTimestepsTowardNoiseForLargeInputs) {
  auto o = options("rflow");
  auto s = make_scheduler(o);
  // 64^3 latents are 8x the 32^3 base: r = 2, s' = 2s / (1 + s).
  const auto ts = s->inference_timesteps(64.0 * 64 * 64);
  const double s1 = 1.0 - 1.0 / 30.0;
  EXPECT_NEAR(ts[1], 1000.0 * 2 * s1 / (1 + s1), 1e-9);
  EXPECT_DOUBLE_EQ(ts[0], 1000.0);
  // At the base size nothing moves.
  EXPECT_NEAR(s->inference_timesteps(32.0 * 32 * 32)[1], 1000.0 * s1, 1e-9);
  // Logit-normal training timesteps: u = 0.5 is the median sigmoid(0) = 0.5.
  o.use_timestep_transform = false;
  auto plain = make_scheduler(o);
  auto t = plain->training_timesteps(at::tensor(std::vector<double>{0.5, 0.975}, at::kDouble), 0);
  EXPECT_NEAR(t[0].item<double>(), 500.0, 1e-6);
  EXPECT_NEAR(t[1].item<double>(), 1000.0 / (1.0 + std::exp(-1.959963985)), 1e-3);
}

TEST(Scheduler, FastDdpmUsesTheSameTenTimestepsForTrainingAndSampling) {
  const auto nonuniform = fast_ddpm_timesteps(1000, 10, FastDdpmSchedule::non_uniform);
  ASSERT_EQ(nonuniform.size(), 10u);
  EXPECT_EQ(nonuniform.front(), 0);
  EXPECT_EQ(nonuniform.back(), 999);
  EXPECT_EQ(std::count_if(nonuniform.begin(), nonuniform.end(), [](auto t) { return t < 699; }), 4);
  EXPECT_TRUE(std::is_sorted(nonuniform.begin(), nonuniform.end()));
  EXPECT_EQ(fast_ddpm_timesteps(1000, 10, FastDdpmSchedule::uniform), (std::vector<std::int64_t>{0, 100, 200, 300, 400, 500, 600, 700, 800, 900}));
  auto s = make_scheduler(options("fast_ddpm"));
  auto u = at::linspace(0.0, 0.999, 200, at::kDouble);
  auto t = s->training_timesteps(u, 0);
  for (int i = 0; i < 200; ++i)
    EXPECT_NE(std::find(nonuniform.begin(), nonuniform.end(), static_cast<std::int64_t>(t[i].item<double>())), nonuniform.end());
  const auto inf = s->inference_timesteps(0);
  ASSERT_EQ(inf.size(), 10u);
  EXPECT_EQ(inf.front(), 999.0);
  EXPECT_EQ(inf.back(), 0.0);
}

// Every scheduler's full loop returns x0 when the network is an oracle.
TEST(Scheduler, FullSamplingWithAnOracleRecoversTheCleanImage) {
  for (const std::string kind : {"ddpm", "ddim", "rflow", "fast_ddpm"}) {
    auto o = options(kind);
    if (kind == "ddpm") o.num_inference_steps = 100;
    auto s = make_scheduler(o);
    auto x0 = randn({1, 1, 2, 3, 2}, 12) * 0.5;
    auto x = randn({1, 1, 2, 3, 2}, 13);
    const auto ts = s->inference_timesteps(12);
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const double t = ts[i], next = i + 1 < ts.size() ? ts[i + 1] : -1.0;
      // The noise implied by x at t, then the output a perfect network gives.
      at::Tensor out;
      if (kind == "rflow") {
        const double sf = t / s->num_train_timesteps();
        auto eps = (x - (1 - sf) * x0) / sf;
        out = x0 - eps;
      } else {
        auto probe = s->add_noise(x0, at::zeros_like(x0), at::tensor(std::vector<double>{t}, at::kDouble));
        auto ones = s->add_noise(at::zeros_like(x0), at::ones_like(x0), at::tensor(std::vector<double>{t}, at::kDouble));
        out = (x - probe) / ones;  // epsilon
      }
      x = s->step(out, t, next, x, s->stochastic() ? randn({1, 1, 2, 3, 2}, 100 + i) : at::Tensor());
    }
    EXPECT_TRUE(at::allclose(x, x0, 1e-6, 1e-7)) << kind << " max err " << (x - x0).abs().max().item<double>();
  }
}

TEST(Scheduler, BadOptionsNameTheField) {
  auto o = options("ddpm");
  o.num_inference_steps = 5000;
  o.noise.beta_start = 0.0;
  try {
    make_scheduler(o);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scheduler.num_inference_steps"), std::string::npos) << what;
    EXPECT_NE(what.find("scheduler.beta_start"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace medsynth
