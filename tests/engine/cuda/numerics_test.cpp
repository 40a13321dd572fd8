// The networks give the CPU's numbers on the GPU: rectified-flow sampling
// with the diffusion UNet agrees with the same sampling on the CPU, and the
// MONAI parity fixtures (tests/engine/models/data) pass with network and
// inputs on cuda:0. TF32 is switched off for these comparisons (it is on by
// default for cuDNN convolutions and rounds fp32 products to 10 mantissa
// bits); the tolerances below are for IEEE fp32 on both sides.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <map>
#include <string>

#include "models/diffusion_model_unet.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "diffusion/generate_stage.hpp"
#include "engine/cuda/cuda_device.hpp"
#include "engine/models/monai_fixture.hpp"
#include "models/autoencoder_kl.hpp"

using namespace medsynth;

namespace {

// IEEE fp32 on the GPU for the scope of a test, restored afterwards.
class NoTf32 {
 public:
  NoTf32() : cudnn_(at::globalContext().allowTF32CuDNN()), cublas_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuDNN(false);
    at::globalContext().setAllowTF32CuBLAS(false);
  }
  ~NoTf32() {
    at::globalContext().setAllowTF32CuDNN(cudnn_);
    at::globalContext().setAllowTF32CuBLAS(cublas_);
  }

 private:
  bool cudnn_, cublas_;
};

double max_abs_difference(const at::Tensor& a, const at::Tensor& b) { return (a.cpu() - b.cpu()).abs().max().item<double>(); }

std::map<std::string, at::Tensor> on_cuda(const std::map<std::string, at::Tensor>& fixture) {
  std::map<std::string, at::Tensor> out;
  for (const auto& [name, t] : fixture) out[name] = t.to(test::cuda0());
  return out;
}

// MONAI's outputs are CPU fp32; the GPU's convolutions sum in another order:
// 10x the CPU parity tolerance (rtol 1e-4, atol 1e-5 in monai_fixture.hpp).
void expect_close_on_gpu(const at::Tensor& ours, const at::Tensor& monai, const std::string& what) {
  ASSERT_TRUE(ours.is_cuda()) << what;
  ASSERT_EQ(ours.sizes(), monai.sizes()) << what;
  const at::Tensor cpu = ours.cpu();
  EXPECT_TRUE(at::allclose(cpu, monai, /*rtol=*/1e-3, /*atol=*/1e-4)) << what << ": max difference " << max_abs_difference(cpu, monai);
}

}  // namespace

// 10 Euler steps of rectified flow (MONAI RFlowScheduler, MAISI's sampler)
// through a small UNet with attention, from the same seed on CPU and cuda:0:
// max |x_gpu - x_cpu| <= 1e-3 x max(1, max |x_cpu|). The network's weights
// are perturbed (its output conv starts at zero) so the flow really moves.
TEST(CudaNumerics, RectifiedFlowSamplingOnTheGpuAgreesWithTheCpu) {
  MEDSYNTH_REQUIRE_CUDA();
  NoTf32 ieee;
  at::manual_seed(3);
  DiffusionModelUNet unet(test::monai_diffusion_unet_options());
  {
    at::NoGradGuard no_grad;
    for (auto& p : unet->parameters()) p.add_(at::randn_like(p) * 0.02);
  }
  unet->eval();
  SchedulerOptions so;
  so.kind = SchedulerKind::rflow;
  so.num_inference_steps = 10;
  const auto scheduler = make_scheduler(so);
  const std::vector<std::int64_t> shape{1, 2, 16, 16, 16};
  at::NoGradGuard no_grad;
  const at::Tensor on_cpu = sample_latent(*unet, *scheduler, shape, 42, {}, c10::Device(c10::kCPU));
  unet->to(test::cuda0());
  const at::Tensor on_gpu = sample_latent(*unet, *scheduler, shape, 42, {}, test::cuda0());
  ASSERT_TRUE(on_gpu.is_cuda());
  const at::Tensor start = at::randn(shape, at::make_generator<at::CPUGeneratorImpl>(42), at::TensorOptions().dtype(at::kFloat));
  ASSERT_GT(max_abs_difference(on_cpu, start), 0.05) << "the flow did not move the noise: the comparison would be empty";
  const double tolerance = 1e-3 * std::max(1.0, on_cpu.abs().max().item<double>());
  EXPECT_LE(max_abs_difference(on_gpu, on_cpu), tolerance);
  EXPECT_TRUE(at::isfinite(on_gpu).all().item<bool>());
}

// tests/engine/models' MonaiParity.AutoencoderWithAttentionAndNonLocalBlocks on cuda:0.
TEST(CudaNumerics, MonaiAutoencoderParityFixturePassesOnTheGpu) {
  MEDSYNTH_REQUIRE_CUDA();
  NoTf32 ieee;
  const auto fixture = test::read_monai_fixture(MEDSYNTH_MODELS_TEST_DATA, "monai_autoencoder_attention");
  AutoencoderKL ae(test::monai_autoencoder_attention_options());
  ae->eval();
  test::load_monai_state(*ae, fixture);
  ae->to(test::cuda0());
  at::NoGradGuard no_grad;
  const auto x = fixture.at("io.x").to(test::cuda0());
  const auto [z_mu, z_log_var] = ae->encode(x);
  expect_close_on_gpu(z_mu, fixture.at("io.z_mu"), "z_mu");
  expect_close_on_gpu(at::exp(0.5 * z_log_var), fixture.at("io.z_sigma"), "z_sigma");
  expect_close_on_gpu(ae->reconstruct(x), fixture.at("io.reconstruction"), "reconstruction");
}

// tests/engine/models' MonaiParity.DiffusionUnetWithAttentionAtCoarseLevels on cuda:0.
TEST(CudaNumerics, MonaiDiffusionUnetParityFixturePassesOnTheGpu) {
  MEDSYNTH_REQUIRE_CUDA();
  NoTf32 ieee;
  const auto fixture = test::read_monai_fixture(MEDSYNTH_MODELS_TEST_DATA, "monai_diffusion_unet");
  DiffusionModelUNet unet(test::monai_diffusion_unet_options());
  unet->eval();
  test::load_monai_state(*unet, fixture);
  unet->to(test::cuda0());
  at::NoGradGuard no_grad;
  const auto io = on_cuda({{"x", fixture.at("io.x")}, {"t", fixture.at("io.t")}});
  expect_close_on_gpu(unet->forward(io.at("x"), io.at("t")), fixture.at("io.y"), "noise prediction");
}
