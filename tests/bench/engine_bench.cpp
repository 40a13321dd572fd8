// medsynth-bench: the foundation benchmarks of docs/performance.md (protocol:
// /work/shared/design/BENCHMARKS.md). Prints a table; asserts nothing.
//   1. the machine's FP32 FMA peak and triad bandwidth (same run);
//   2. autoencoder train step (forward + backward + AdamW) at 64^3 for
//      fp32/bf16-autocast x contiguous/channels-last-3d, GFLOP/s and % of peak;
//   3. loader throughput in voxels/s from .nii.gz: uncached and cached epochs.
//   4. --model-sizes: parameters and forward conv FLOPs of the MAISI-size
//      models (JSON, read by dist_bench.py for the modelled multi-GPU table).
// Usage: medsynth-bench [--threads N] [--runs R] [--quick] | --model-sizes
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/optim/adamw.h>
#include <torch/version.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "data/batch_loader.hpp"
#include "data/ct_phantom.hpp"
#include "data/volume_dataset.hpp"
#include "flop_counter.hpp"
#include "machine_limits.hpp"
#include "models/autoencoder_kl.hpp"
#include "train/autocast_scope.hpp"
#include "metrics/losses.hpp"
#include "volume/volume_io.hpp"
#include "core/remove_tree.hpp"

using namespace medsynth;
using Clock = std::chrono::steady_clock;

namespace {

struct Stats {
  double min, median, max;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

struct StepCase {
  const char* name;
  bool bf16;
  bool channels_last;
};

void to_channels_last(torch::nn::Module& m) {
  for (auto& p : m.parameters())
    if (p.dim() == 5) p.set_data(p.data().contiguous(at::MemoryFormat::ChannelsLast3d));
}

void bench_autoencoder(const char* label, AutoencoderKLOptions options, int size, int runs, double peak) {
  std::printf("\nautoencoder train step, %s, input [1,1,%d,%d,%d] (median of %d after 2 warm-ups)\n", label, size, size, size, runs);
  std::printf("  %-28s %10s %10s %10s %12s %9s\n", "variant", "min s", "median s", "max s", "GFLOP/s", "% peak");
  const StepCase cases[] = {{"fp32 contiguous", false, false},
                            {"fp32 channels_last_3d", false, true},
                            {"bf16 autocast contiguous", true, false},
                            {"bf16 autocast channels_last_3d", true, true}};
  for (const auto& c : cases) {
    at::manual_seed(0);
    AutoencoderKL model(options);
    if (c.channels_last) to_channels_last(*model);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-4));
    at::Tensor x = at::rand({1, 1, size, size, size});
    if (c.channels_last) x = x.contiguous(at::MemoryFormat::ChannelsLast3d);
    double forward_flops = 0;
    auto step = [&](bool count) {
      std::unique_ptr<bench::ConvFlopCounter> counter;
      if (count) counter = std::make_unique<bench::ConvFlopCounter>();
      at::Tensor loss;
      {
        AutocastScope autocast(c.bf16, c10::kCPU);
        auto out = model->forward(x);
        loss = reconstruction_loss(out.reconstruction.to(at::kFloat), x, "l1") + 1e-7 * kl_loss(out.z_mu.to(at::kFloat), out.z_log_var.to(at::kFloat));
      }
      if (counter) forward_flops = counter->forward_flops();
      loss.backward();
      opt.step();
      opt.zero_grad();
    };
    step(true);
    step(false);
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
      auto t0 = Clock::now();
      step(false);
      times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    Stats s = stats(times);
    const double gflops = 3.0 * forward_flops / s.median / 1e9;  // backward ~ 2x forward
    std::printf("  %-28s %10.3f %10.3f %10.3f %12.1f %8.1f%%\n", c.name, s.min, s.median, s.max, gflops, 100.0 * gflops / peak);
  }
}

void bench_loader(int runs, int size, int files) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("medsynth-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  PhantomOptions po;
  po.size = {size, size, size};
  po.spacing = {2.0, 2.0, 2.0};
  po.noise_hu = 10;
  for (int i = 0; i < files; ++i) write_volume(make_ct_phantom(100 + i, po), (dir / ("ct_" + std::to_string(i) + ".nii.gz")).string());
  std::printf("\nloader: %d phantoms %d^3 as .nii.gz, CT window -> [0,1], 64^3 patches, batch 2 (median of %d)\n", files, size, runs);
  std::printf("  %-36s %12s %12s %14s\n", "variant", "median s", "epoch vox/s", "read vox/s");
  for (int workers : {0, 2}) {
    for (double cache : {0.0, 1.0}) {
      DataSpec spec;
      spec.source = DataSource::folder;
      spec.path = dir.string();
      spec.val_fraction = 0.01;
      spec.cache_rate = cache;
      spec.num_workers = workers;
      spec.patch_size = {64, 64, 64};
      VolumeDataset ds(spec, "train", 42);
      if (cache > 0) ds.warm_cache(std::max(1, workers));
      LoaderOptions lo;
      lo.batch_size = 2;
      lo.patch_size = spec.patch_size;
      lo.num_workers = workers;
      lo.prefetch = 2;
      BatchLoader loader(ds, lo);
      std::vector<double> times;
      for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        loader.start_epoch(r);
        while (loader.next()) {
        }
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      }
      Stats s = stats(times);
      const double volume_voxels = double(size) * size * size * ds.size();
      char name[64];
      std::snprintf(name, sizeof name, "workers %d, cache_rate %.0f", workers, cache);
      std::printf("  %-36s %12.3f %12.3g %14.3g\n", name, s.median, volume_voxels / s.median, volume_voxels / s.median);
    }
  }
  remove_tree(dir);
}

// One line of JSON per model: parameter count and forward conv FLOPs of one
// [1,1,S,S,S] patch (fp32, measured by the counter on a real forward pass).
void print_model_sizes() {
  struct Case {
    const char* name;
    std::vector<int> channels;
    std::vector<int> res_blocks;
    int groups;
    int patch;
  };
  const Case cases[] = {{"maisi_autoencoder", {64, 128, 256}, {2, 2, 2}, 32, 64}, {"quickstart_autoencoder", {16, 32, 32}, {1, 1, 1}, 8, 32}};
  for (const auto& c : cases) {
    AutoencoderKLOptions o;
    o.num_channels = c.channels;
    o.num_res_blocks = c.res_blocks;
    o.norm_num_groups = c.groups;
    AutoencoderKL model(o);
    std::int64_t params = 0;
    for (const auto& p : model->parameters()) params += p.numel();
    double flops = 0;
    {
      at::NoGradGuard no_grad;
      bench::ConvFlopCounter counter;
      model->reconstruct(at::rand({1, 1, c.patch, c.patch, c.patch}));
      flops = counter.forward_flops();
    }
    std::printf("{\"model\":\"%s\",\"parameters\":%lld,\"patch\":%d,\"forward_gflops\":%.3f}\n", c.name,
                static_cast<long long>(params), c.patch, flops / 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, runs = 5;
  bool quick = false, model_sizes = false;
  CLI::App cli{"medsynth-bench: the engine's foundation benchmarks (docs/performance.md). Prints tables; asserts nothing."};
  cli.set_version_flag("--version", std::string("medsynth-bench ") + MEDSYNTH_VERSION);
  cli.add_option("--threads", threads, "intra-op threads")->check(CLI::PositiveNumber);
  cli.add_option("--runs", runs, "timed runs per row (median reported)")->check(CLI::PositiveNumber);
  cli.add_flag("--quick", quick, "the quick start's model only, fewer rows");
  cli.add_flag("--model-sizes", model_sizes, "print the MAISI-size models' parameters and FLOPs as JSON, then exit");
  CLI11_PARSE(cli, argc, argv);
  if (model_sizes) {
    print_model_sizes();
    return 0;
  }
  at::set_num_threads(threads);
  auto limits = bench::measure_machine_limits(threads);
  std::printf("machine: %s | flags: %s | threads %d | LibTorch %s\n", limits.cpu.c_str(), limits.flags.c_str(), threads, TORCH_VERSION);
  std::printf("FP32 FMA peak: %.1f GFLOP/s   triad bandwidth: %.1f GB/s\n", limits.fp32_peak_gflops, limits.triad_gb_per_s);

  AutoencoderKLOptions quick_model;
  quick_model.num_channels = {16, 32, 32};
  quick_model.num_res_blocks = {1, 1, 1};
  quick_model.norm_num_groups = 8;
  bench_autoencoder("quickstart model (16,32,32)", quick_model, 64, runs, limits.fp32_peak_gflops);
  if (!quick) {
    AutoencoderKLOptions wide = quick_model;
    wide.num_channels = {32, 64, 64};
    wide.num_res_blocks = {2, 2, 2};
    wide.norm_num_groups = 16;
    bench_autoencoder("MAISI-shaped, half width (32,64,64) x2 res blocks", wide, 64, runs, limits.fp32_peak_gflops);
  }
  bench_loader(runs, quick ? 96 : 128, quick ? 4 : 8);
  return 0;
}
