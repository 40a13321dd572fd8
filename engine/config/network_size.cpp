#include "config/network_size.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config/job_plan.hpp"
#include "config/job_spec.hpp"
#include "config/task_catalog.hpp"
#include "core/error.hpp"

namespace medsynth {
namespace {

constexpr double k_kernel = 27.0;  // 3x3x3
constexpr double k_refused_over_memory = 1.5;  // a CPU step estimated above 1.5x the machine is refused

double at_level(const std::vector<int>& v, std::size_t i, int fallback) {
  return static_cast<double>(i < v.size() ? v[i] : fallback);
}

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

}  // namespace

double estimated_parameters(const AutoencoderKLOptions& o) {
  double total = 0;
  for (std::size_t i = 0; i < o.num_channels.size(); ++i) {
    const double c = o.num_channels[i], blocks = at_level(o.num_res_blocks, i, 1);
    // Encoder: blocks x 2 convolutions and a downsampling one; decoder:
    // (blocks + 1) x 2 and an upsampling one.
    total += k_kernel * c * c * (2 * blocks + 1 + 2 * (blocks + 1) + 1);
    if (i < o.attention_levels.size() && o.attention_levels[i]) total += 2 * 4 * c * c;
  }
  const double top = o.num_channels.empty() ? 0 : o.num_channels.back();
  total += 2 * (2 * k_kernel * top * top + 4 * top * top);  // the middle blocks of encoder and decoder
  return total;
}

double estimated_parameters(const DiffusionUnetOptions& o) {
  double total = 0;
  for (std::size_t i = 0; i < o.channels.size(); ++i) {
    const double c = o.channels[i], blocks = at_level(o.num_res_blocks, i, 1);
    // Down: blocks x 2 convolutions and a downsampler; up: (blocks + 1)
    // residual blocks whose first convolution also takes the skip (1.5x),
    // and an upsampler.
    total += k_kernel * c * c * (2 * blocks + 1 + (blocks + 1) * 2.5 + 1);
    if (i < o.attention_levels.size() && o.attention_levels[i]) {
      // qkv + out (4c^2) and, in a transformer, the feed-forward (8c^2), per layer.
      const double layers = o.with_conditioning ? std::max(1, o.transformer_num_layers) : 1;
      total += (2 * blocks + 1) * layers * (o.with_conditioning ? 12 : 4) * c * c;
    }
  }
  const double top = o.channels.empty() ? 0 : o.channels.back();
  total += 2 * 2 * k_kernel * top * top + 4 * top * top;  // the middle block
  return total;
}

double estimated_parameters(const ResNetShape& o) {
  const double kernel = o.spatial_dims == 2 ? 9.0 : k_kernel;  // the blocks' 3^d convolutions
  double in = o.stem_width,
         total = std::pow(static_cast<double>(o.stem_kernel), o.spatial_dims) * o.input_channels * o.stem_width;
  for (std::size_t l = 0; l < o.widths.size() && l < o.blocks.size(); ++l) {
    const double w = o.widths[l], out = o.bottleneck ? 4 * w : w;
    for (int b = 0; b < o.blocks[l]; ++b) {
      // Bottleneck: 1^d in->w, 3^d w->w, 1^d w->4w; basic: 3^d in->w, 3^d w->w.
      total += o.bottleneck ? in * w + kernel * w * w + w * out : kernel * in * w + kernel * w * w;
      if (b == 0) total += in * out;  // the downsampling shortcut
      in = out;
    }
  }
  return total;
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

void refuse_network_larger_than_memory(double parameters, const std::string& source, const std::string& field) {
  const double bytes = parameters * 4.0, memory = static_cast<double>(physical_memory_bytes());
  if (memory > 0 && bytes > 0.5 * memory)
    throw DataError(source, field + " asks for a network of about " + gigabytes(bytes) + " of float32 weights (" +
                                std::to_string(static_cast<long long>(parameters / 1e6)) + " M parameters), more than half of this machine's " +
                                gigabytes(memory) + "; refusing to build it");
}

void refuse_network_larger_than_its_file(double parameters, double stored, double factor, const std::string& file,
                                         const std::string& asked_by) {
  constexpr double k_small_tensors = 1e6;
  if (parameters > factor * stored + k_small_tensors)
    throw DataError(file, asked_by + " for a network of about " + std::to_string(static_cast<long long>(parameters)) +
                              " parameters, but the file stores only " +
                              std::to_string(static_cast<long long>(stored)) +
                              " numbers, and every parameter is loaded from it; refusing to build it");
}

void refuse_job_networks_larger_than_memory(const JobSpec& job, const std::string& source) {
  const TaskTraits* traits = find_task(job.task);
  if (!traits) return;  // validation names the unknown task
  if (traits->first_stage != FirstStageRole::none)
    refuse_network_larger_than_memory(
        estimated_parameters(AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss)), source,
        "model.autoencoder");
  if (traits->diffusion != DiffusionRole::none)
    refuse_network_larger_than_memory(estimated_parameters(job.model.diffusion_unet), source, "model.diffusion_unet");
}

ActivationFloor activation_floor(const JobSpec& job, bool generating) {
  const auto voxels = [](const auto& size) {
    return static_cast<double>(size[0]) * static_cast<double>(size[1]) * static_cast<double>(size[2]);
  };
  if (generating) {
    // The decoded volume, float32, and the copy that is written: whatever tiling the decoder uses.
    return {2.0 * 4.0 * voxels(job.generate.output_size), "generate.output_size"};
  }
  // The first convolution's output for one micro-batch, at 2 bytes (the
  // smallest AMP precision), which the backward pass keeps: every network
  // keeps many such maps, so this is far below what a step needs. Tasks
  // whose first layer sees no data.patch_size patch at full width (survival
  // strides its first convolution, controlnet trains on latents) get none.
  const TaskTraits* traits = find_task(job.task);
  const bool unet = traits && traits->diffusion == DiffusionRole::image_unet;
  const bool first_stage = traits && (traits->first_stage == FirstStageRole::trained ||
                                      traits->first_stage == FirstStageRole::pipeline_stage);
  if (!unet && !first_stage) return {0.0, "data.patch_size"};
  const auto& widths = unet ? job.model.diffusion_unet.channels : job.model.autoencoder.num_channels;
  const double width = widths.empty() ? 1.0 : static_cast<double>(widths.front());
  return {static_cast<double>(job.training.batch_size) * voxels(job.data.patch_size) * width * 2.0, "data.patch_size"};
}

void refuse_job_activations_larger_than_memory(const JobSpec& job, const std::string& source, bool generating) {
  const ActivationFloor floor = activation_floor(job, generating);
  const double memory = static_cast<double>(physical_memory_bytes());
  if (memory > 0 && floor.bytes > memory)
    throw DataError(source, floor.field + " needs at least " + gigabytes(floor.bytes) +
                                " for its activations alone, more than this machine's " + gigabytes(memory) +
                                "; refusing to start (make it smaller, or run where it fits)");
  // Training on this machine's CPU: the planner's estimate of a step (within
  // 25 % of measured peaks, docs/performance.md "The planner"). Refused at
  // 1.5x the machine, where the margin covers the estimate's error: such a
  // step would be killed for memory, or swap to a halt, after the set-up.
  // On a GPU the device's memory decides, which this machine cannot see.
  if (generating || job.training.device != "cpu" || memory <= 0) return;
  const JobPlan plan = plan_job(job);
  if (plan.peak_bytes() > k_refused_over_memory * memory)
    throw DataError(source, "data.patch_size and training.batch_size: a training step" +
                                (plan.stage.empty() ? std::string() : " of the " + plan.stage) + " needs about " +
                                gibibytes(plan.peak_bytes()) + " per process (the planner's estimate: activations " +
                                gibibytes(plan.activation_bytes) + ", weights and Adam " + gibibytes(plan.state_bytes) +
                                "; medsynth-engine validate --plan), more than this machine's " + gibibytes(memory) +
                                "; refusing to start (make them smaller, or train on a GPU)");
}

}  // namespace medsynth
