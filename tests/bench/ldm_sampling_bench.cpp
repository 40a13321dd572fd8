// Sampling benchmark of the latent diffusion stage (BENCHMARKS.md "sampling"):
// the wall time of generating one volume with rectified flow (30 steps), DDPM
// (1000), DDIM (50) and Fast-DDPM (10), for the diffusion stage alone and end
// to end (noise -> reverse process -> tiled/whole decode), all measured side
// by side in one run on the same UNet and autoencoder, plus the UNet's
// training step. Weights are random: the cost of a step does not depend on
// them. Compare with MAISI's published 27-30x (diffusion) and ~12x (end to
// end) on an A100. Prints a table; asserts nothing.
//   build/bin/medsynth-bench-ldm [--runs N] [--latent E] [--threads T]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "models/diffusion_model_unet.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "diffusion/generate_stage.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "machine_limits.hpp"
#include "models/autoencoder_kl.hpp"

using namespace medsynth;
using Clock = std::chrono::steady_clock;

namespace {

struct Timing {
  double median = 0, low = 0, high = 0;
};

// Two warm-ups, then the median and spread of `runs` timed calls.
Timing time_it(const std::function<void()>& f, int runs) {
  f();
  f();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto s = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, edge = 16, threads = 0;
  CLI::App cli{"medsynth-bench-ldm: wall time of sampling one volume with rflow, DDPM, DDIM and Fast-DDPM. Prints a table; asserts nothing."};
  cli.set_version_flag("--version", std::string("medsynth-bench-ldm ") + MEDSYNTH_VERSION);
  cli.add_option("--runs", runs, "timed runs per row (median reported)")->check(CLI::PositiveNumber);
  cli.add_option("--latent", edge, "latent edge E (image edge 4E)")->check(CLI::PositiveNumber);
  cli.add_option("--threads", threads, "intra-op threads (0: LibTorch's default)")->check(CLI::NonNegativeNumber);
  CLI11_PARSE(cli, argc, argv);
  if (threads > 0) at::set_num_threads(threads);
  threads = at::get_num_threads();
  const auto limits = bench::measure_machine_limits(threads);
  std::printf("machine: %s | flags: %s | threads %d | LibTorch %s | fp32, contiguous\n", limits.cpu.c_str(), limits.flags.c_str(), threads,
              TORCH_VERSION);
  std::printf("FP32 FMA peak: %.1f GFLOP/s   triad bandwidth: %.1f GB/s\n", limits.fp32_peak_gflops, limits.triad_gb_per_s);

  // ldm-tiny's networks (resources/jobs/ldm-tiny.yaml); latent edge^3 x 4 -> image (4 edge)^3.
  JobSpec job;
  job.model.autoencoder.latent_channels = 4;
  job.model.autoencoder.num_channels = {16, 32, 32};
  job.model.autoencoder.num_res_blocks = {1, 1, 1};
  job.model.autoencoder.norm_num_groups = 8;
  AutoencoderKLOptions ao;
  ao.latent_channels = 4;
  ao.num_channels = {16, 32, 32};
  ao.num_res_blocks = {1, 1, 1};
  ao.norm_num_groups = 8;
  ao.attention_levels = {false, false, false};
  AutoencoderKL ae(ao);
  ae->eval();
  DiffusionUnetOptions uo;
  uo.channels = {32, 64};
  uo.num_res_blocks = {1, 1};
  uo.attention_levels = {false, true};
  uo.num_head_channels = {0, 32};
  uo.norm_num_groups = 8;
  DiffusionModelUNet unet(uo);
  std::printf("latent %dx%dx%d x 4 -> image %d^3 | UNet %lld parameters\n", edge, edge, edge, edge * 4,
              static_cast<long long>([&] {
                std::int64_t n = 0;
                for (const auto& p : unet->parameters()) n += p.numel();
                return n;
              }()));

  const std::vector<std::int64_t> shape{1, 4, edge, edge, edge};
  // UNet training step (forward + backward, batch 2) and one inference step.
  {
    auto x = at::randn({2, 4, edge, edge, edge});
    auto t = at::full({2}, 500.0);
    unet->train();
    const auto step = time_it(
        [&] {
          unet->zero_grad();
          at::mse_loss(unet->forward(x, t), x).backward();
        },
        runs);
    std::printf("UNet training step (batch 2): %.1f ms [%.1f-%.1f]\n", step.median * 1e3, step.low * 1e3, step.high * 1e3);
  }
  unet->eval();
  at::NoGradGuard no_grad;
  const auto decode = time_it([&] { decode_tiled(*ae, at::randn(shape), 0); }, runs);
  std::printf("decode (whole): %.3f s\n\n", decode.median);

  struct Row {
    std::string name;
    SchedulerOptions options;
  };
  std::vector<Row> rows;
  for (const auto& [name, kind, steps] :
       std::vector<std::tuple<std::string, SchedulerKind, int>>{{"rflow (30)", SchedulerKind::rflow, 30},
                                                                {"DDPM (1000)", SchedulerKind::ddpm, 1000},
                                                                {"DDIM (50)", SchedulerKind::ddim, 50},
                                                                {"Fast-DDPM (10)", SchedulerKind::fast_ddpm, 10}}) {
    SchedulerOptions o;
    o.kind = kind;
    o.num_inference_steps = steps;
    rows.push_back({name, o});
  }
  std::printf("%-16s %8s %14s %14s %12s %12s\n", "scheduler", "steps", "diffusion s", "end-to-end s", "x rflow diff", "x rflow e2e");
  double rflow_diffusion = 0, rflow_e2e = 0;
  for (const auto& row : rows) {
    auto scheduler = make_scheduler(row.options);
    const auto steps = scheduler->inference_timesteps(static_cast<double>(edge) * edge * edge);  // for the table
    auto diffusion_only = [&] { return sample_latent(*unet, *scheduler, shape, 42, UnetEmbeddingInputs{}, c10::Device(c10::kCPU)); };
    const int r =
        row.options.kind == SchedulerKind::ddpm ? std::max(3, runs / 2) : runs;  // DDPM dominates the run time
    const auto diffusion = time_it([&] { diffusion_only(); }, r);
    const double e2e = diffusion.median + decode.median;
    if (row.options.kind == SchedulerKind::rflow) rflow_diffusion = diffusion.median, rflow_e2e = e2e;
    std::printf("%-16s %8zu %14.3f %14.3f %12.1f %12.1f\n", row.name.c_str(), steps.size(), diffusion.median, e2e,
                diffusion.median / rflow_diffusion, e2e / rflow_e2e);
  }
  std::printf("\nMAISI (A100, published): rflow vs DDPM 27-30x diffusion stage, ~12x end to end.\n");
  return 0;
}
