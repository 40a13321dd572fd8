#include "config/job_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "config/autoencoder_kl_options.hpp"
#include "config/job_spec.hpp"
#include "config/network_size.hpp"
#include "config/task_catalog.hpp"

namespace medsynth {

namespace {

constexpr double k_kernel = 27.0;  // 3x3x3 convolutions
// Tensors one residual block keeps for the backward pass, per channel-voxel.
// Two norms, two activations and two convolutions would keep six inputs; the
// measured growth of the quick start's peak with its patch (float32, 32^3 to
// 64^3: 291 MiB, docs/performance.md "The planner") says four: PyTorch frees
// or shares some of them.
constexpr double k_block = 4.0;
// Bytes per kept element: float32, or under AMP bf16/fp16 convolutions with
// float32 norms (measured: 2.5 on the quick start in bf16).
constexpr double k_float32_bytes = 4.0, k_amp_bytes = 2.5;
// Multiply-adds per second. CPU, per core: the quick start's 80 GMAC steps
// took 0.33 s on 2 Zen 5 cores in bf16 (2026-11-27), and 1.9x as long in
// float32 (4.2 vs 7.9 min for the whole recipe). H100: MAISI's rflow-ct UNet,
// 342 GMAC per forward at a 64x64x32 latent, 0.07 s per sampling step in fp16.
constexpr double k_cpu_bf16_per_core = 120e9, k_cpu_float32_per_core = 63e9, k_h100 = 4.9e12;
constexpr double k_adam_bytes_per_parameter = 16.0;  // weight, gradient, two moments (float32)

double level(const std::vector<int>& v, std::size_t i, int fallback) {
  return static_cast<double>(i < v.size() ? v[i] : fallback);
}

double voxels(const std::array<int, 3>& size) {
  return static_cast<double>(size[0]) * static_cast<double>(size[1]) * static_cast<double>(size[2]);
}

// MONAI's AutoencoderKL on `v` voxels: elements kept for the backward pass,
// and multiply-adds. Encoder: blocks and a downsampling convolution per
// level; the two middle blocks each side; decoder: blocks + 1 per level and
// an upsampling (interpolation, then a convolution at the finer grid).
void autoencoder(const AutoencoderKLOptions& o, double v, double& elements, double& macs) {
  const std::size_t levels = o.num_channels.size();
  double vi = v;
  for (std::size_t i = 0; i < levels; ++i, vi /= 8.0) {
    const double c = o.num_channels[i], blocks = level(o.num_res_blocks, i, 1);
    elements += k_block * c * vi * (blocks + (blocks + 1));
    macs += k_kernel * c * c * vi * 2.0 * (blocks + (blocks + 1));
    if (i + 1 < levels) {
      elements += c * vi;                   // the downsampler's input
      macs += k_kernel * c * c * vi / 8.0;  // stride 2
      const double up = o.num_channels[i + 1];
      elements += 2.0 * up * vi;  // interpolated map and its convolution's input
      macs += k_kernel * up * up * vi;
    }
    if (i < o.attention_levels.size() && o.attention_levels[i]) elements += 4.0 * c * vi + vi * vi;
  }
  const double top = o.num_channels.empty() ? 1.0 : o.num_channels.back();
  const double v_top = v / std::pow(8.0, static_cast<double>(levels > 0 ? levels - 1 : 0));
  elements += 2.0 * 2.0 * k_block * top * v_top + 3.0 * o.latent_channels * v_top;  // middle blocks, mu/logvar/z
  macs += 2.0 * 4.0 * k_kernel * top * top * v_top;
  const double first = o.num_channels.empty() ? 1.0 : o.num_channels.front();
  elements += first * v + 4.0 * o.in_channels * v;  // conv_out's input, the output and the loss's terms
  macs += 2.0 * k_kernel * o.in_channels * first * v;
}

// MONAI's DiffusionModelUNet on `v` voxels: down blocks, up blocks whose
// first convolution also takes the skip (1.5x), attention's projections and
// its V x V weights per head at the levels that have it.
void unet(const DiffusionUnetOptions& o, double v, double& elements, double& macs) {
  const std::size_t levels = o.channels.size();
  double vi = v;
  for (std::size_t i = 0; i < levels; ++i, vi /= 8.0) {
    const double c = o.channels[i], blocks = level(o.num_res_blocks, i, 1);
    elements += k_block * c * vi * (blocks + 1.5 * (blocks + 1)) + 3.0 * c * vi;  // blocks, down and up sampling
    macs += k_kernel * c * c * vi * 2.0 * (blocks + 1.25 * (blocks + 1)) + 2.0 * k_kernel * c * c * vi / 8.0;
    if (i < o.attention_levels.size() && o.attention_levels[i]) {
      const double head_channels = level(o.num_head_channels, i, 0);
      const double heads = head_channels > 0 ? std::max(1.0, c / head_channels) : 1.0;
      const double attentions = 2.0 * blocks + 1.0;
      elements += attentions * (4.0 * c * vi + 2.0 * heads * vi * vi);
      macs += attentions * (4.0 * c * c * vi + 2.0 * c * vi * vi);
    }
  }
  const double top = o.channels.empty() ? 1.0 : o.channels.back();
  const double v_top = v / std::pow(8.0, static_cast<double>(levels > 0 ? levels - 1 : 0));
  elements += 2.0 * k_block * top * v_top + 4.0 * o.in_channels * v;
  macs += 4.0 * k_kernel * top * top * v_top;
}

// MONAI's PatchDiscriminator (4^3 kernels, stride 2 but the last), run on
// the real and the generated volume.
void discriminator(const PatchDiscriminatorOptions& o, double v, int in_channels, double& elements, double& macs) {
  double vi = v, c_in = in_channels;
  for (int l = 0; l <= o.num_layers_d; ++l) {
    const double c = o.channels * std::pow(2.0, std::min(l, 3));
    if (l < o.num_layers_d) vi /= 8.0;
    elements += 2.0 * 3.0 * c * vi;
    macs += 2.0 * 64.0 * c_in * c * vi;
    c_in = c;
  }
}

// MONAI's 3D ResNet: conv1 (strided in-plane, and by conv1_t_stride), a max
// pool, four stages, each after the first at half the grid per axis.
void resnet(const ResNet3dOptions& o, double v, int in_channels, double& elements, double& macs) {
  const std::vector<int> blocks = o.depth == 10   ? std::vector<int>{1, 1, 1, 1}
                                  : o.depth == 18 ? std::vector<int>{2, 2, 2, 2}
                                                  : std::vector<int>{3, 4, 6, 3};
  const double expansion = o.depth >= 50 ? 4.0 : 1.0;
  double vi = v / (4.0 * std::max(1, o.conv1_t_stride));
  const double first = o.block_inplanes.empty() ? 64.0 : o.block_inplanes.front();
  elements += 3.0 * first * vi;
  macs += o.conv1_t_size * 49.0 * in_channels * first * vi;
  if (!o.no_max_pool) vi /= 8.0;
  double c_in = first;
  for (std::size_t s = 0; s < 4; ++s) {
    if (s > 0) vi /= 8.0;
    const double c = level(o.block_inplanes, s, 64) * expansion;
    elements += k_block * c * vi * blocks[s];
    macs += k_kernel * c_in * c * vi + k_kernel * c * c * vi * (2.0 * blocks[s] - 1.0);
    c_in = c;
  }
}

NetworkPlan network(std::string name, double parameters, double elements, double macs, double batch, double bytes) {
  return {std::move(name), parameters, elements * batch * bytes, macs * batch};
}

JobPlan finish(JobPlan plan, const JobSpec& job) {
  for (const auto& n : plan.networks) {
    plan.state_bytes += k_adam_bytes_per_parameter * n.parameters;
    plan.activation_bytes += n.activation_bytes;
    plan.step_macs += n.macs * job.training.gradient_accumulation_steps;
  }
  return plan;
}

// The autoencoder (or VQ-GAN) step on data.patch_size patches, with its discriminator.
JobPlan first_stage_plan(const JobSpec& job, bool vqgan, double bytes) {
  JobPlan plan;
  const double v = voxels(job.data.patch_size), batch = job.training.batch_size;
  auto options = AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss);
  if (vqgan) options.latent_channels = job.model.vqgan.embedding_dim;
  double elements = 0, macs = 0;
  autoencoder(options, v, elements, macs);
  plan.networks.push_back(network(vqgan ? "model.vqgan (model.autoencoder's encoder and decoder)" : "model.autoencoder",
                                  estimated_parameters(options), elements, macs, batch, bytes));
  if (job.loss.adv_weight > 0 || vqgan) {
    PatchDiscriminatorOptions d = job.model.discriminator;
    d.in_channels = job.model.autoencoder.in_channels;
    double de = 0, dm = 0;
    discriminator(d, v, d.in_channels, de, dm);
    double parameters = 0, c_in = d.in_channels;
    for (int l = 0; l <= d.num_layers_d; ++l) {
      const double c = d.channels * std::pow(2.0, std::min(l, 3));
      parameters += 64.0 * c_in * c;
      c_in = c;
    }
    plan.networks.push_back(network("model.discriminator", parameters, de, dm, batch, bytes));
  }
  if (job.loss.perceptual_weight > 0)
    plan.notes.push_back("the perceptual loss's feature network (loss.perceptual_network) is not counted");
  return plan;
}

// The diffusion UNet's step on the latents of whole volumes (the encode
// stage encodes each training volume whole): the phantoms' size, or for
// files, whose size is known only once read, generate.output_size.
JobPlan diffusion_stage_plan(const JobSpec& job, double bytes, bool controlnet) {
  JobPlan plan;
  const auto options = AutoencoderKLOptions::from_spec(job.model.autoencoder, job.loss);
  const double factor = std::pow(2.0, static_cast<double>(std::max<std::size_t>(1, options.num_channels.size()) - 1));
  const bool simulated = job.data.source == DataSource::simulated;
  if (!simulated)
    plan.notes.push_back("the training volumes' size, known once they are read: generate.output_size stands for it");
  const double v = voxels(simulated ? job.data.phantom_size : job.generate.output_size) / (factor * factor * factor);
  const double batch = job.training.batch_size;
  double elements = 0, macs = 0;
  unet(job.model.diffusion_unet, v, elements, macs);
  const double parameters = estimated_parameters(job.model.diffusion_unet);
  if (controlnet) {
    // The frozen UNet keeps its activations (the loss reaches the ControlNet
    // through it); the ControlNet, about its encoder half, is what trains.
    plan.networks.push_back(network("model.diffusion_unet (frozen)", 0, elements, macs, batch, bytes));
    plan.networks.push_back(network("ControlNet", parameters / 2, elements / 2, macs / 2, batch, bytes));
  } else {
    plan.networks.push_back(network("model.diffusion_unet", parameters, elements, macs, batch, bytes));
  }
  return plan;
}

}  // namespace

std::string gibibytes(double bytes) {
  char text[32];
  if (bytes < 1024.0 * 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.0f MiB", bytes / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

namespace {

JobPlan plan_stages(const JobSpec& job);

}  // namespace

JobPlan plan_job(const JobSpec& job) {
  JobPlan plan = plan_stages(job);
  const double steps = static_cast<double>(std::max<std::int64_t>(0, job.training.max_steps));
  const TaskTraits* traits = find_task(job.task);
  if (traits && traits->diffusion != DiffusionRole::none &&
      trains_first_stage(*traits, job.ldm.autoencoder_checkpoint)) {
    // A pipeline that trains its autoencoder first: both stages' steps.
    const double bytes = job.training.amp ? k_amp_bytes : k_float32_bytes;
    const JobPlan first = finish(first_stage_plan(job, first_stage_is_vqgan(*traits, job.ldm.first_stage), bytes), job);
    const JobPlan latent = finish(diffusion_stage_plan(job, bytes, false), job);
    plan.run_macs = first.step_macs * static_cast<double>(job.ldm.autoencoder_steps) + latent.step_macs * steps;
  } else {
    plan.run_macs = plan.step_macs * steps;
  }
  return plan;
}

namespace {

JobPlan resnet_plan(const JobSpec& job, double bytes) {
  JobPlan plan;
  double elements = 0, macs = 0;
  resnet(job.model.resnet, voxels(job.data.patch_size), 1, elements, macs);
  double parameters = 0;
  for (std::size_t s = 0; s < 4; ++s)
    parameters += 2.5 * k_kernel * std::pow(level(job.model.resnet.block_inplanes, s, 64), 2);
  plan.networks.push_back(network("model.resnet", parameters, elements, macs, job.training.batch_size, bytes));
  return plan;
}

JobPlan image_unet_plan(const JobSpec& job, double bytes) {
  JobPlan plan;
  double elements = 0, macs = 0;
  unet(job.model.diffusion_unet, voxels(job.data.patch_size), elements, macs);
  plan.networks.push_back(network("model.diffusion_unet", estimated_parameters(job.model.diffusion_unet), elements,
                                  macs, job.training.batch_size, bytes));
  return plan;
}

// What the task's catalog entry says it builds (config/task_catalog.hpp);
// for a pipeline, the stage that needs the most.
JobPlan plan_stages(const JobSpec& job) {
  const double bytes = job.training.amp ? k_amp_bytes : k_float32_bytes;
  const TaskTraits* traits = find_task(job.task);
  if (!traits) {
    JobPlan unknown;
    unknown.notes.push_back("task '" + job.task + "' is not in the task catalog: nothing is planned");
    return unknown;
  }
  const bool vqgan = first_stage_is_vqgan(*traits, job.ldm.first_stage);
  if (traits->builds_resnet) return finish(resnet_plan(job, bytes), job);
  switch (traits->diffusion) {
    case DiffusionRole::none:
      if (traits->first_stage == FirstStageRole::none) return {};  // task_registry_test refuses such an entry
      return finish(first_stage_plan(job, vqgan, bytes), job);
    case DiffusionRole::image_unet:
      return finish(image_unet_plan(job, bytes), job);
    case DiffusionRole::latent_unet:
    case DiffusionRole::latent_controlnet:
      break;
  }
  JobPlan latent = finish(diffusion_stage_plan(job, bytes, traits->diffusion == DiffusionRole::latent_controlnet), job);
  latent.stage = std::string(latent_stage_name(*traits));
  if (traits->first_stage != FirstStageRole::pipeline_stage ||
      !trains_first_stage(*traits, job.ldm.autoencoder_checkpoint))
    return latent;
  JobPlan first = finish(first_stage_plan(job, vqgan, bytes), job);
  first.stage = "autoencoder stage";
  return first.peak_bytes() >= latent.peak_bytes() ? first : latent;
}

}  // namespace

double cpu_seconds(double forward_macs, int cores, bool amp) {
  const double rate = (amp ? k_cpu_bf16_per_core : k_cpu_float32_per_core) * std::max(1, cores);
  return 3.0 * forward_macs / rate;
}

double h100_seconds(double forward_macs) { return 3.0 * forward_macs / k_h100; }

}  // namespace medsynth
