// Memory and time of the full-size MAISI networks (BENCHMARKS.md "memory"):
// peak resident memory of decoding an S^3 CT with NV-Generate's autoencoder
// (AutoencoderKlMaisi 64/128/256, split convolutions) through the tiled
// decode, and the time of one diffusion-UNet step (DiffusionModelUNetMaisi
// as rflow-ct) at an E^3 x 4 latent. Weights are random: time and memory do
// not depend on them. Prints one row per run; asserts nothing. Run one
// measurement per process: peak RSS is the process's high-water mark.
//   build/bin/medsynth-bench-maisi decode --size 512 --tile 32 [--max-tiles 2] [--splits 4]
//   build/bin/medsynth-bench-maisi encode --size 512 512 256 --tile 32 [--max-tiles 2]
//   build/bin/medsynth-bench-maisi unet-step --latent 128
//   build/bin/medsynth-bench-maisi generate --size 256 256 128 [--steps 30] [--tile 32]
// `generate` is NV-Generate's sample.py on a GPU: 30 rectified-flow Euler
// steps of the rflow-ct UNet from noise, then the tiled decode, both under
// float16 autocast as NV-Generate runs them, through the engine's own
// sample_latent and decode_tiled; it prints the wall time and the CUDA
// caching allocator's peak (allocated and reserved) for the whole and for the
// decode alone.
// --max-tiles K stops the decode after K tiles: every tile is the same size
// and the blending buffers are allocated with the first, so the peak is
// reached there; the full decode's time is the per-tile time x the tiles.
#include <ATen/ATen.h>
#include <ATen/DeviceAccelerator.h>
#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include <CLI/CLI.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <string>
#include <vector>

#include "config/diffusion_spec.hpp"
#include "models/diffusion_model_unet.hpp"
#include "schedulers/diffusion_scheduler.hpp"
#include "diffusion/generate_stage.hpp"
#include "diffusion/latent_autoencoder.hpp"
#include "models/autoencoder_kl.hpp"
#include "train/autocast_scope.hpp"
#include "maisi_networks.hpp"

using namespace medsynth;
using medsynth::bench::maisi_autoencoder;
using medsynth::bench::maisi_unet;
using Clock = std::chrono::steady_clock;

namespace {

double peak_rss_gib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is in KiB on Linux
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

int run_decode(int size, int tile, int max_tiles, int splits, const c10::Device& device) {
  AutoencoderKL ae(maisi_autoencoder(splits, /*norm_float16=*/true));
  ae->to(device);
  ae->eval();
  const double before = peak_rss_gib();
  const auto z = at::randn({1, 4, size / 4, size / 4, size / 4}).to(device);
  int done = 0, total = 0;
  const auto start = Clock::now();
  decode_tiled(*ae, z, tile, TileBlending{}, [&](int d, int t) {
    done = d;
    total = t;
    return max_tiles <= 0 || d < max_tiles;
  });
  const double elapsed = seconds_since(start);
  const double per_tile = done > 0 ? elapsed / done : elapsed;
  std::printf("decode %d^3  tile %d (latent) = %d^3 image  splits %d  tiles %d/%d  peak RSS %.2f GiB (%.2f before decoding)  "
              "%.1f s per tile, full decode ~%.0f s%s\n",
              size, tile, tile * 4, splits, done, total, peak_rss_gib(), before, per_tile, per_tile * total,
              device.is_cuda() ? "" : " (CPU)");
  if (device.is_cuda())
    std::printf("  peak CUDA memory: see nvidia-smi or PYTORCH_CUDA_ALLOC_CONF stats (not read here)\n");
  return 0;
}

// MAISI's encoder on a whole CT of size[0] x size[1] x size[2] (x, y, z),
// in latent tiles of `tile` (0: whole).
int run_encode(const std::vector<int>& size, int tile, int max_tiles, int splits, const c10::Device& device) {
  AutoencoderKL ae(maisi_autoencoder(splits, /*norm_float16=*/true));
  ae->to(device);
  ae->eval();
  const auto x = at::rand({1, 1, size[2], size[1], size[0]}).to(device);
  const double before = peak_rss_gib();
  int done = 0, total = 1;
  const auto start = Clock::now();
  encode_mean_tiled(*ae, x, tile, [&](int d, int t) {
    done = d;
    total = t;
    return max_tiles <= 0 || d < max_tiles;
  });
  const double elapsed = seconds_since(start);
  const double per_tile = elapsed / std::max(done, 1);
  std::printf("encode %dx%dx%d  tile %d (latent) = %d^3 image  splits %d  tiles %d/%d  peak RSS %.2f GiB (%.2f with the input)  "
              "%.1f s per tile, full encode ~%.0f s\n",
              size[0], size[1], size[2], tile, tile * 4, splits, std::max(done, 1), total, peak_rss_gib(), before, per_tile, per_tile * total);
  return 0;
}

int run_unet_step(int latent, const c10::Device& device) {
  DiffusionModelUNet unet(maisi_unet());
  unet->to(device);
  unet->eval();
  at::NoGradGuard no_grad;
  const auto x = at::randn({1, 4, latent, latent, latent}).to(device);
  UnetConditioning c;
  c.embedding.class_labels = at::ones({1}, at::TensorOptions().dtype(at::kLong).device(device));
  c.embedding.spacing = at::full({1, 3}, 150.0).to(device);
  const auto t = at::full({1}, 500.0).to(device);
  const auto start = Clock::now();
  unet->forward(x, t, c);
  std::printf("unet step  latent %d^3 x 4  %.1f s  peak RSS %.2f GiB\n", latent, seconds_since(start), peak_rss_gib());
  return 0;
}


// The CUDA caching allocator's peaks since the last reset, in GiB
// (allocated: what tensors held; reserved: what the allocator took from
// the driver, the number that decides an out-of-memory).
struct CudaPeak {
  double allocated = 0, reserved = 0;
};
CudaPeak cuda_peak(const c10::Device& device) {
  if (!device.is_cuda()) return {};
  const auto stats = at::accelerator::getDeviceStats(device.index());
  constexpr auto all = static_cast<std::size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
  const double gib = 1024.0 * 1024.0 * 1024.0;
  return {static_cast<double>(stats.allocated_bytes[all].peak) / gib, static_cast<double>(stats.reserved_bytes[all].peak) / gib};
}
void reset_cuda_peak(const c10::Device& device) {
  if (device.is_cuda()) at::accelerator::resetPeakStats(device.index());
}
void synchronize(const c10::Device& device) {
  if (device.is_cuda()) at::accelerator::synchronizeDevice(device.index());
}

// NV-Generate's sample.py at full size: `steps` rflow Euler steps of the
// rflow-ct UNet on a size/4 latent, then the tiled decode (latent tile
// `tile`, num_splits `splits`), under float16 autocast on a GPU.
int run_generate(const std::vector<int>& size, int steps, int tile, int splits, const c10::Device& device) {
  DiffusionModelUNet unet(maisi_unet());
  AutoencoderKL ae(maisi_autoencoder(splits, /*norm_float16=*/true));
  unet->to(device);
  ae->to(device);
  unet->eval();
  ae->eval();
  SchedulerOptions so;
  so.kind = SchedulerKind::rflow;
  so.num_inference_steps = steps;
  so.use_timestep_transform = true;
  const auto scheduler = make_scheduler(so);
  UnetEmbeddingInputs inputs;
  const auto on = at::TensorOptions().device(device);
  inputs.class_labels = at::ones({1}, on.dtype(at::kLong));
  inputs.spacing = at::full({1, 3}, 150.0, on);
  at::NoGradGuard no_grad;
  AutocastScope autocast(device.is_cuda(), device.type(), at::kHalf);
  synchronize(device);
  reset_cuda_peak(device);
  const auto start = Clock::now();
  const auto z = sample_latent(*unet, *scheduler, {1, 4, size[2] / 4, size[1] / 4, size[0] / 4}, 0, inputs, device);
  synchronize(device);
  const double sampling = seconds_since(start);
  const CudaPeak sampling_peak = cuda_peak(device);
  reset_cuda_peak(device);
  const auto decode_start = Clock::now();
  int total = 0;
  const auto image = decode_tiled(*ae, z, tile, TileBlending{}, [&](int, int t) {
    total = t;
    return true;
  });
  synchronize(device);
  const double decoding = seconds_since(decode_start);
  const CudaPeak decode_peak = cuda_peak(device);
  std::printf("generate %dx%dx%d  %d rflow steps %.1f s (%.2f s/step)  decode tile %d x %d tiles %.1f s  total %.1f s\n", size[0], size[1],
              size[2], steps, sampling, sampling / steps, tile, total, decoding, sampling + decoding);
  std::printf("  peak CUDA memory: sampling %.2f GiB allocated / %.2f reserved; decode alone %.2f / %.2f; image %s %.1f MB; peak RSS %.2f GiB\n",
              sampling_peak.allocated, sampling_peak.reserved, decode_peak.allocated, decode_peak.reserved,
              c10::toString(image.scalar_type()), static_cast<double>(image.nbytes()) / 1e6, peak_rss_gib());
  return image.isfinite().all().item<bool>() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int size = 256, tile = 32, max_tiles = 0, splits = 4, latent = 128, threads = 0;
  CLI::App cli{"medsynth-bench-maisi: peak memory of a full-size MAISI decode and the time of a full-size UNet step. Prints; asserts nothing."};
  cli.set_version_flag("--version", std::string("medsynth-bench-maisi ") + MEDSYNTH_VERSION);
  cli.add_option("--threads", threads, "Intra-op threads (default: LibTorch's)");
  cli.require_subcommand(1);
  auto* decode = cli.add_subcommand("decode", "Tiled decode of a size^3 image");
  decode->add_option("--size", size, "Image edge in voxels (a multiple of 4)")->capture_default_str();
  decode->add_option("--tile", tile, "Latent tile edge (NV-Generate: 48 or 80 on GPUs)")->capture_default_str();
  decode->add_option("--max-tiles", max_tiles, "Stop after this many tiles (0: all)")->capture_default_str();
  decode->add_option("--splits", splits, "num_splits of the convolutions (NV-Generate: 4)")->capture_default_str();
  std::vector<int> encode_size{512, 512, 256};
  auto* encode = cli.add_subcommand("encode", "Tiled encode of a whole CT");
  encode->add_option("--size", encode_size, "x y z voxels (multiples of 4)")->expected(3)->capture_default_str();
  encode->add_option("--tile", tile, "Latent tile edge (0: whole)")->capture_default_str();
  encode->add_option("--max-tiles", max_tiles, "Stop after this many tiles (0: all)")->capture_default_str();
  encode->add_option("--splits", splits, "num_splits of the convolutions")->capture_default_str();
  auto* step = cli.add_subcommand("unet-step", "One forward of the rflow-ct UNet");
  step->add_option("--latent", latent, "Latent edge (MAISI's 512^3 image: 128)")->capture_default_str();
  std::vector<int> generate_size{256, 256, 128};
  int steps = 30;
  auto* generate = cli.add_subcommand("generate", "NV-Generate's sampling at full size: rflow steps, then the tiled decode");
  generate->add_option("--size", generate_size, "x y z voxels (multiples of 4)")->expected(3)->capture_default_str();
  generate->add_option("--steps", steps, "rflow Euler steps")->capture_default_str();
  generate->add_option("--tile", tile, "Latent tile edge of the decode")->capture_default_str();
  generate->add_option("--splits", splits, "num_splits of the decoder's convolutions")->capture_default_str();
  CLI11_PARSE(cli, argc, argv);
  if (threads > 0) at::set_num_threads(threads);
  const c10::Device device = torch::cuda::is_available() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  std::printf("%d threads, %s\n", at::get_num_threads(), device.is_cuda() ? torch::cuda::device_count() > 0 ? "cuda:0" : "cuda" : "cpu");
  if (decode->parsed()) return run_decode(size, tile, max_tiles, splits, device);
  if (encode->parsed()) return run_encode(encode_size, tile, max_tiles, splits, device);
  if (generate->parsed()) return run_generate(generate_size, steps, tile, splits, device);
  return run_unet_step(latent, device);
}
