// Training and sampling steps of the full-size MAISI networks, timed the way
// tests/bench/monai_maisi_step_bench.py times MONAI's modules, so that
// tests/bench/maisi_vs_monai.py can put the two side by side on one GPU and
// one torch (issue 18, docs/performance.md "On a GPU: medsynth ÷ MONAI"):
//   ae-train-step    AutoencoderKlMaisi, patch^3 x batch: forward, L1 + KL,
//                    backward, AdamW
//   unet-train-step  the rflow-ct diffusion UNet at a latent^3 x 4 latent:
//                    forward with class and spacing, MSE to the velocity,
//                    backward, AdamW
//   rflow-sample     `steps` Euler steps of rectified flow (one UNet forward
//                    each) on a latent^3 x 4 latent
//   peak             a bf16 (CUDA) or fp32 (CPU) matrix product: the measured
//                    peak that the steps are reported against
// Each prints one JSON line: the median, min and max seconds of --runs timed
// runs after --warmup untimed ones, the device synchronised around each.
// ae-train-step --model quickstart|half takes the quick start's autoencoder
// or engine_bench's half-width one instead of MAISI's (the CPU rows of issue
// 51); --optimizer loop takes torch's AdamW loop instead of the engine's
// fused kernel; --profile adds a line with the step's self time per operator
// class (op_profile.hpp), over --runs more steps; --upsample-conv direct
// takes the upsampling blocks' direct path instead of the engine's phases
// (models/nearest_upsample_conv.hpp).
// Weights and inputs are random: time does not depend on them. Asserts
// nothing; never part of CI.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/cuda.h>
#include <torch/optim/adamw.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "models/diffusion_model_unet.hpp"
#include "maisi_networks.hpp"
#include "models/autoencoder_kl.hpp"
#include "models/nearest_upsample_conv.hpp"
#include "op_profile.hpp"
#include "train/autocast_scope.hpp"
#include "train/fused_adamw.hpp"

using namespace medsynth;
using Clock = std::chrono::steady_clock;

namespace {

struct StepOptions {
  int warmup = 2;
  int runs = 5;
  int batch = 2;        // ae-train-step: patches per step
  int unet_batch = 1;   // unet-train-step: latents per step (MAISI trains with 1)
  int patch = 64;   // ae-train-step
  int latent = 64;  // unet-train-step, rflow-sample
  int steps = 30;   // rflow-sample
  std::string amp = "auto";  // bf16 | off | auto (bf16 on CUDA, off on a CPU)
  int matrix = 0;   // peak: 0 = 8192 on CUDA, 2048 on a CPU
  std::string model = "maisi";               // ae-train-step: maisi | quickstart | half
  std::string optimizer = "fused";           // fused (the engine's) | loop (torch::optim::AdamW)
  std::string upsample_conv = "phases";      // phases (the engine's) | direct (upsample, then convolve)
  std::string memory_format = "contiguous";  // contiguous | channels_last_3d (weights and input)
  bool profile = false;
};

std::unique_ptr<torch::optim::AdamW> make_optimizer(const StepOptions& o, std::vector<at::Tensor> params) {
  const auto options = torch::optim::AdamWOptions(1e-4);
  if (o.optimizer == "loop") return std::make_unique<torch::optim::AdamW>(std::move(params), options);
  return std::make_unique<FusedAdamW>(std::move(params), options);
}

// The quick start's autoencoder (resources/jobs/quickstart.yaml) and
// engine_bench's half-width MAISI shape: MONAI's AutoencoderKL, not MAISI's.
AutoencoderKLOptions autoencoder_for(const std::string& model) {
  if (model == "maisi") return bench::maisi_autoencoder(/*splits=*/1, /*norm_float16=*/false);
  AutoencoderKLOptions o;
  o.latent_channels = 4;
  o.attention_levels = {false, false, false};
  o.num_channels = model == "quickstart" ? std::vector<int>{16, 32, 32} : std::vector<int>{32, 64, 64};
  o.num_res_blocks = model == "quickstart" ? std::vector<int>{1, 1, 1} : std::vector<int>{2, 2, 2};
  o.norm_num_groups = model == "quickstart" ? 8 : 16;
  return o;
}

struct Timing {
  double median = 0, min = 0, max = 0;
};

void synchronize(const c10::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

// --warmup untimed calls, then --runs timed ones, each bracketed by a device sync.
Timing time_runs(const StepOptions& o, const c10::Device& device, const std::function<void()>& step) {
  for (int i = 0; i < o.warmup; ++i) step();
  std::vector<double> seconds;
  for (int i = 0; i < o.runs; ++i) {
    synchronize(device);
    const auto start = Clock::now();
    step();
    synchronize(device);
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back()};
}

// --runs more steps under the operator hooks: one JSON line of self seconds
// per class and step, and the steps' wall time under the hooks.
void print_profile(const StepOptions& o, const c10::Device& device, const char* bench,
                   const std::function<void()>& step) {
  if (!o.profile) return;
  bench::OpProfile profile;
  synchronize(device);
  const auto start = Clock::now();
  for (int i = 0; i < o.runs; ++i) step();
  synchronize(device);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count() / o.runs;
  std::printf("{\"impl\": \"medsynth\", \"bench\": \"%s\", \"profile_wall_s\": %.6f, \"profile\": %s}\n", bench, wall,
              profile.json(o.runs).c_str());
  std::fflush(stdout);
  // The operators behind the classes, for a person reading stderr.
  std::fprintf(stderr, "operators of most self time (ms per step):\n%s", profile.top_names(o.runs, 25).c_str());
}

bool use_bf16(const StepOptions& o, const c10::Device& device) {
  return o.amp == "bf16" || (o.amp == "auto" && device.is_cuda());
}

void print_result(const char* bench, const std::string& shape, const StepOptions& o, const c10::Device& device,
                  const Timing& t, double extra_value = 0, const char* extra_name = nullptr) {
  std::printf("{\"impl\": \"medsynth\", \"bench\": \"%s\", \"shape\": \"%s\", \"device\": \"%s\", \"amp\": \"%s\", "
              "\"threads\": %d, \"runs\": %d, \"median_s\": %.6f, \"min_s\": %.6f, \"max_s\": %.6f",
              bench, shape.c_str(), device.str().c_str(), use_bf16(o, device) ? "bf16" : "off", at::get_num_threads(),
              o.runs, t.median, t.min, t.max);
  if (extra_name != nullptr) std::printf(", \"%s\": %.3f", extra_name, extra_value);
  std::printf("}\n");
  std::fflush(stdout);
}

int run_ae_train_step(const StepOptions& o, const c10::Device& device) {
  AutoencoderKL ae(autoencoder_for(o.model));
  ae->to(device);
  ae->train();
  const bool channels_last = o.memory_format == "channels_last_3d";
  if (channels_last)
    for (auto& p : ae->parameters())
      if (p.dim() == 5) p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast3d));
  auto optimizer = make_optimizer(o, ae->parameters());
  auto x = at::rand({o.batch, 1, o.patch, o.patch, o.patch}, at::TensorOptions().device(device));
  if (channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast3d);
  const bool bf16 = use_bf16(o, device);
  const auto step = [&] {
    optimizer->zero_grad(/*set_to_none=*/true);
    at::Tensor loss;
    {
      RECORD_USER_SCOPE("forward");
      AutocastScope autocast(bf16, device.type(), at::kBFloat16);
      const auto out = ae->forward(x);
      // MAISI's autoencoder loss without its perceptual and adversarial
      // terms: L1 reconstruction + a small KL weight (as in the seeds).
      const auto kl = 0.5 * (out.z_mu.pow(2) + out.z_sigma.pow(2) - at::log(out.z_sigma.pow(2) + 1e-8) - 1.0);
      loss = (out.reconstruction.to(at::kFloat) - x).abs().mean() + 1e-6 * kl.sum({1, 2, 3, 4}).mean();
    }
    {
      RECORD_USER_SCOPE("backward");
      loss.backward();
    }
    RECORD_USER_SCOPE("optimizer");
    optimizer->step();
  };
  const auto t = time_runs(o, device, step);
  print_result("ae-train-step", o.model + " " + std::to_string(o.batch) + "x1x" + std::to_string(o.patch) + "^3", o,
               device, t);
  print_profile(o, device, "ae-train-step", step);
  return 0;
}

UnetConditioning maisi_conditioning(int batch, const c10::Device& device) {
  UnetConditioning c;
  c.embedding.class_labels = at::ones({batch}, at::TensorOptions().dtype(at::kLong).device(device));
  c.embedding.spacing = at::full({batch, 3}, 150.0, at::TensorOptions().device(device));
  return c;
}

int run_unet_train_step(const StepOptions& o, const c10::Device& device) {
  DiffusionModelUNet unet(bench::maisi_unet());
  unet->to(device);
  unet->train();
  auto optimizer = make_optimizer(o, unet->parameters());
  const auto opts = at::TensorOptions().device(device);
  const auto x0 = at::randn({o.unet_batch, 4, o.latent, o.latent, o.latent}, opts);
  const auto noise = at::randn_like(x0);
  const auto t = at::rand({o.unet_batch}, opts) * 1000.0;
  const auto s = (t / 1000.0).view({o.unet_batch, 1, 1, 1, 1});
  const auto xt = (1.0 - s) * x0 + s * noise;  // rectified flow: straight path, velocity noise - x0
  const auto velocity = noise - x0;
  const auto c = maisi_conditioning(o.unet_batch, device);
  const bool bf16 = use_bf16(o, device);
  const auto step = [&] {
    optimizer->zero_grad(/*set_to_none=*/true);
    at::Tensor loss;
    {
      RECORD_USER_SCOPE("forward");
      AutocastScope autocast(bf16, device.type(), at::kBFloat16);
      loss = (unet->forward(xt, t, c).to(at::kFloat) - velocity).pow(2).mean();
    }
    {
      RECORD_USER_SCOPE("backward");
      loss.backward();
    }
    RECORD_USER_SCOPE("optimizer");
    optimizer->step();
  };
  const auto timing = time_runs(o, device, step);
  print_result("unet-train-step", std::to_string(o.unet_batch) + "x4x" + std::to_string(o.latent) + "^3", o, device, timing);
  print_profile(o, device, "unet-train-step", step);
  return 0;
}

int run_rflow_sample(const StepOptions& o, const c10::Device& device) {
  DiffusionModelUNet unet(bench::maisi_unet());
  unet->to(device);
  unet->eval();
  const auto opts = at::TensorOptions().device(device);
  const auto c = maisi_conditioning(1, device);
  const bool bf16 = use_bf16(o, device);
  const auto sample = [&] {
    RECORD_USER_SCOPE("forward");
    at::NoGradGuard no_grad;
    AutocastScope autocast(bf16, device.type(), at::kBFloat16);
    auto x = at::randn({1, 4, o.latent, o.latent, o.latent}, opts);
    // Euler steps from t = 1000 (noise) to 0 on an even grid: the network
    // cost of rectified flow; the scheduler's own arithmetic is negligible.
    for (int i = 0; i < o.steps; ++i) {
      const double t_now = 1000.0 * (1.0 - static_cast<double>(i) / o.steps);
      const double t_next = 1000.0 * (1.0 - static_cast<double>(i + 1) / o.steps);
      const auto v = unet->forward(x, at::full({1}, t_now, opts), c).to(at::kFloat);
      x = x + (t_next - t_now) / 1000.0 * v;
    }
  };
  const auto t = time_runs(o, device, sample);
  print_result("rflow-sample", std::to_string(o.steps) + " steps 1x4x" + std::to_string(o.latent) + "^3", o, device, t);
  print_profile(o, device, "rflow-sample", sample);
  return 0;
}

int run_peak(const StepOptions& o, const c10::Device& device) {
  const int n = o.matrix > 0 ? o.matrix : device.is_cuda() ? 8192 : 2048;
  const auto dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
  const auto a = at::randn({n, n}, at::TensorOptions().device(device).dtype(dtype));
  const auto b = at::randn({n, n}, at::TensorOptions().device(device).dtype(dtype));
  StepOptions timed = o;
  timed.runs = std::max(o.runs, 10);
  timed.warmup = std::max(o.warmup, 3);
  const auto t = time_runs(timed, device, [&] { at::mm(a, b); });
  const double tflops = 2.0 * n * static_cast<double>(n) * n / t.median / 1e12;
  print_result("peak", std::string(device.is_cuda() ? "bf16 " : "fp32 ") + std::to_string(n) + "^3 mm", timed, device, t,
               tflops, "tflops");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  StepOptions o;
  int threads = 0;
  std::string device_name = "auto";
  CLI::App cli{
      "medsynth-bench-maisi-step: time a training step of the MAISI autoencoder and diffusion UNet, rflow sampling, "
      "and the device's matrix-product peak. One JSON line per run; asserts nothing. tests/bench/maisi_vs_monai.py "
      "compares it with MONAI."};
  cli.set_version_flag("--version", std::string("medsynth-bench-maisi-step ") + MEDSYNTH_VERSION);
  cli.add_option("--threads", threads, "Intra-op threads (default: LibTorch's)");
  cli.add_option("--device", device_name, "auto (cuda:0 when there is one), cpu, or cuda:N")->capture_default_str();
  cli.add_option("--warmup", o.warmup, "Untimed runs first")->capture_default_str()->check(CLI::NonNegativeNumber);
  cli.add_option("--runs", o.runs, "Timed runs (the median is reported)")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--amp", o.amp, "bf16, off, or auto (bf16 on CUDA, off on a CPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "bf16", "off"}));
  cli.add_option("--optimizer", o.optimizer, "fused (the engine's: ATen's fused AdamW) or loop (torch::optim::AdamW)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fused", "loop"}));
  cli.add_option("--upsample-conv", o.upsample_conv,
                 "phases (the engine's 8-phase convolution of a nearest x2 upsampling) or direct")
      ->capture_default_str()
      ->check(CLI::IsMember({"phases", "direct"}));
  cli.add_option("--memory-format", o.memory_format, "ae-train-step: contiguous or channels_last_3d")
      ->capture_default_str()
      ->check(CLI::IsMember({"contiguous", "channels_last_3d"}));
  cli.add_flag("--profile", o.profile, "Also print the self time per operator class over --runs more runs");
  cli.require_subcommand(1);
  auto* ae = cli.add_subcommand("ae-train-step", "One training step of AutoencoderKlMaisi on patch^3 x batch");
  ae->add_option("--patch", o.patch, "Patch edge in voxels (a multiple of 4)")->capture_default_str();
  ae->add_option("--batch", o.batch, "Patches per step")->capture_default_str();
  ae->add_option("--model", o.model, "maisi (AutoencoderKlMaisi), quickstart (16,32,32) or half (32,64,64)")
      ->capture_default_str()
      ->check(CLI::IsMember({"maisi", "quickstart", "half"}));
  auto* unet = cli.add_subcommand("unet-train-step", "One training step of the rflow-ct diffusion UNet");
  unet->add_option("--latent", o.latent, "Latent edge (a multiple of 8)")->capture_default_str();
  unet->add_option("--batch", o.unet_batch, "Latents per step")->capture_default_str();
  auto* sample = cli.add_subcommand("rflow-sample", "Rectified-flow sampling: one UNet forward per step");
  sample->add_option("--latent", o.latent, "Latent edge (MAISI's 512^3 image: 128)")->capture_default_str();
  sample->add_option("--steps", o.steps, "Euler steps (NV-Generate: 30)")->capture_default_str();
  auto* peak = cli.add_subcommand("peak", "Matrix-product peak: bf16 on CUDA, fp32 on a CPU");
  peak->add_option("--matrix", o.matrix, "Matrix edge (0: 8192 on CUDA, 2048 on a CPU)")->capture_default_str();
  CLI11_PARSE(cli, argc, argv);
  if (threads > 0) at::set_num_threads(threads);
  set_nearest_upsample_conv_enabled(o.upsample_conv == "phases");
  const c10::Device device = device_name == "auto"
                                 ? (torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU))
                                 : c10::Device(device_name);
  if (device.is_cuda() && !torch::cuda::is_available()) {
    std::fprintf(stderr, "medsynth-bench-maisi-step: --device %s, but this LibTorch sees no CUDA device\n",
                 device_name.c_str());
    return 2;
  }
  at::manual_seed(0);
  if (ae->parsed()) return run_ae_train_step(o, device);
  if (unet->parsed()) return run_unet_train_step(o, device);
  if (sample->parsed()) return run_rflow_sample(o, device);
  return run_peak(o, device);
}
