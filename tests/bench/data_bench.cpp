// Data-pipeline benchmark of the two non-diffusion seed workflows
// (BENCHMARKS.md protocol: every row of a table from one run, side by side):
//  1. patches/s of the VQ-GAN's grid pipeline at the seed's geometry - 80
//     patches of 128^3 from a 512 x 512 x 604 volume - for extraction, the
//     foreground filter, and stitching back (constant and Gaussian blending);
//  2. the survival task's epoch time with MONAI's SmartCache against no cache
//     and a full cache, on real .nii.gz files written by ITK, each batch
//     followed by a real ResNet-10 training step (the compute SmartCache's
//     background replacement hides its loading behind).
// Prints tables; asserts nothing.
//   build/bin/medsynth-bench-data [--runs N] [--volumes N] [--edge E]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "data/ct_phantom.hpp"
#include "data/patch_grid.hpp"
#include "data/survival_data.hpp"
#include "machine_limits.hpp"
#include "models/resnet3d.hpp"
#include "metrics/survival_metrics.hpp"
#include "volume/volume_io.hpp"
#include "core/remove_tree.hpp"

using namespace medsynth;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double seconds(const std::function<void()>& f) {
  auto s = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - s).count();
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void patch_table(int runs) {
  at::manual_seed(0);
  at::Tensor image = at::rand({1, 1, 604, 512, 512});
  PatchGridOptions o;  // 128^3, stride 128
  const PatchGrid grid = make_patch_grid({604, 512, 512}, o);
  std::vector<at::Tensor> patches;
  auto extract = [&] {
    patches.clear();
    for (std::size_t i = 0; i < grid.size(); ++i) patches.push_back(extract_patch(image, grid, i, 0.0));
  };
  auto filter = [&] { foreground_patches(image, grid, 0.1, 0.2); };
  auto stitch = [&](PatchBlend blend) {
    PatchStitcher s(grid, 1, blend, at::TensorOptions());
    for (std::size_t i = 0; i < grid.size(); ++i) s.add(i, patches[i]);
    s.result();
  };
  PatchGridOptions half = o;
  half.stride = {64, 64, 64};
  const PatchGrid overlap_grid = make_patch_grid({604, 512, 512}, half);
  std::vector<at::Tensor> overlap_patches;
  for (std::size_t i = 0; i < overlap_grid.size(); ++i) overlap_patches.push_back(extract_patch(image, overlap_grid, i, 0.0));
  auto stitch_overlap = [&] {
    PatchStitcher s(overlap_grid, 1, PatchBlend::gaussian, at::TensorOptions());
    for (std::size_t i = 0; i < overlap_grid.size(); ++i) s.add(i, overlap_patches[i]);
    s.result();
  };
  struct Row { const char* name; std::size_t patches; std::function<void()> f; };
  std::vector<Row> rows{{"extract 128^3 / stride 128", grid.size(), extract},
                        {"foreground filter", grid.size(), filter},
                        {"stitch (no overlap)", grid.size(), [&] { stitch(PatchBlend::constant); }},
                        {"stitch stride 64, Gaussian", overlap_grid.size(), stitch_overlap}};
  std::printf("patch pipeline on a 512 x 512 x 604 float volume (%zu grid patches of 128^3, stride 128; %zu at stride 64)\n",
              grid.size(), overlap_grid.size());
  std::printf("%-30s %8s %12s %12s\n", "step", "patches", "seconds", "patches/s");
  for (auto& row : rows) {
    row.f();  // warm-up
    std::vector<double> t;
    for (int r = 0; r < runs; ++r) t.push_back(seconds(row.f));
    const double s = median_of(t);
    std::printf("%-30s %8zu %12.3f %12.1f\n", row.name, row.patches, s, row.patches / s);
  }
  std::printf("\n");
}

// A CSV cohort of phantoms written as .nii.gz (real decompression on every load).
std::string write_cohort(const fs::path& dir, int volumes, int edge) {
  fs::create_directories(dir);
  std::ofstream csv(dir / "cohort.csv");
  csv << "image,time,event\n";
  PhantomOptions p;
  p.size = {edge, edge, edge};
  p.spacing = {320.0 / edge, 320.0 / edge, 320.0 / edge};
  for (int i = 0; i < volumes; ++i) {
    const std::string name = "case_" + std::to_string(i) + ".nii.gz";
    write_volume(make_ct_phantom(1000 + i, p), (dir / name).string());
    csv << name << "," << 5 + i % 17 << "," << i % 3 % 2 << "\n";
  }
  return (dir / "cohort.csv").string();
}

void cache_table(int runs, int volumes, int edge) {
  const fs::path dir = fs::temp_directory_path() / ("medsynth-bench-cache-" + std::to_string(::getpid()));
  JobSpec job;
  job.task = "survival";
  job.data.source = DataSource::csv;
  job.data.path = write_cohort(dir, volumes, edge);
  job.data.val_fraction = 0.05;
  job.data.patch_size = {32, 32, 32};
  ResNet3dOptions net_options;
  net_options.depth = 10;
  net_options.block_inplanes = {8, 16, 32, 64};
  net_options.conv1_t_stride = 2;
  struct Mode { const char* name; bool smart; double cache_rate; };
  const std::vector<Mode> modes{{"no cache", false, 0.0}, {"full cache", false, 1.0}, {"SmartCache 0.5 / 0.25", true, 0.5}};
  std::printf("survival epoch on %d .nii.gz volumes of %d^3 -> 32^3, batch 4, ResNet-10 step per batch (median of epochs 2..%d)\n",
              volumes, edge, runs + 1);
  std::printf("%-24s %10s %10s %12s %14s %10s\n", "data", "samples", "epoch s", "ms/sample", "x no cache/smp", "preps");
  double base_per_sample = 0;
  for (const auto& mode : modes) {
    job.data.smart_cache = mode.smart;
    job.data.cache_rate = mode.smart ? mode.cache_rate : mode.cache_rate;
    job.data.replace_rate = 0.25;
    SurvivalData data(job, "train");
    SurvivalSourceOptions o;
    o.batch_size = 4;
    o.smart_cache = mode.smart;
    o.cache.cache_rate = mode.cache_rate;
    o.cache.replace_rate = 0.25;
    SurvivalBatchSource source(data, o);
    at::manual_seed(0);
    ResNet3d net(net_options);
    std::vector<double> epochs;
    int samples = 0;
    for (int e = 0; e <= runs; ++e) {
      samples = 0;
      const double t = seconds([&] {
        source.start_epoch(e);
        while (auto batch = source.next()) {
          at::Tensor risk = net->forward(batch->images);
          cox_partial_likelihood_loss(risk, batch->labels.select(1, 0), batch->labels.select(1, 1)).backward();
          samples += static_cast<int>(batch->images.size(0));
        }
      });
      if (e > 0) epochs.push_back(t);  // epoch 0 fills the caches
    }
    const double epoch = median_of(epochs), per_sample = epoch / samples;
    if (base_per_sample == 0) base_per_sample = per_sample;
    std::printf("%-24s %10d %10.3f %12.1f %14.2f %10zu\n", mode.name, samples, epoch, per_sample * 1e3, base_per_sample / per_sample,
                data.loads());
  }
  remove_tree(dir);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3, volumes = 48, edge = 96;
  CLI::App cli{"medsynth-bench-data: VQ-GAN patch pipeline and survival SmartCache epochs. Prints tables; asserts nothing."};
  cli.set_version_flag("--version", std::string("medsynth-bench-data ") + MEDSYNTH_VERSION);
  cli.add_option("--runs", runs, "timed runs per row (median reported)")->check(CLI::PositiveNumber);
  cli.add_option("--volumes", volumes, "volumes written for the cache table")->check(CLI::PositiveNumber);
  cli.add_option("--edge", edge, "edge of those volumes in voxels")->check(CLI::PositiveNumber);
  CLI11_PARSE(cli, argc, argv);
  const auto limits = bench::measure_machine_limits(at::get_num_threads());
  std::printf("machine: %s | flags: %s | threads %d\n\n", limits.cpu.c_str(), limits.flags.c_str(), at::get_num_threads());
  patch_table(runs);
  cache_table(runs, volumes, edge);
  return 0;
}
