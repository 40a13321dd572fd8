// How big a network an options struct asks for, from the options alone
// (nothing allocated), and the refusal of one larger than the machine. Why:
// a network is allocated when it is built, before any weight is read, so a
// 1.7 KB file with a stranger's config built a 3.9 GB network and another
// asked for 464 GB, each ending in bad_alloc and a backtrace (issue 37).
// The counts are estimates from the convolutions and attention projections
// (within a factor of 2 of the real count: tests/engine/config); enough to
// tell a network that fits from one that cannot. Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/autoencoder_kl_options.hpp"
#include "config/diffusion_spec.hpp"

namespace medsynth {

double estimated_parameters(const AutoencoderKLOptions& options);
double estimated_parameters(const DiffusionUnetOptions& options);

// A ResNet as the feature networks build one (models/resnet3d.hpp in 3D,
// models/radimagenet_resnet.hpp in 2D): a stem convolution, then blocks[l]
// blocks of widths[l] channels per layer, bottlenecks (x4 out) or basic
// blocks. Nothing of it is a job field: its shapes come from a weights file.
struct ResNetShape {
  int input_channels = 1;
  int stem_width = 64;
  int stem_kernel = 7;   // along each spatial axis
  int spatial_dims = 3;  // 3 (ResNet3d) or 2 (RadImageNet)
  bool bottleneck = true;
  std::vector<int> widths;
  std::vector<int> blocks;
};
double estimated_parameters(const ResNetShape& shape);

// This machine's memory in bytes (0 where it cannot be read).
std::uint64_t physical_memory_bytes();

// DataError naming `source` and `field` when float32 weights of `parameters`
// take more than half of this machine's memory, with both numbers.
void refuse_network_larger_than_memory(double parameters, const std::string& source, const std::string& field);

// A network whose every parameter is loaded from a file cannot be much larger
// than the numbers the file stores: a stranger's config or shapes that ask for
// more than `factor` times them (plus a million, for the small tensors an
// estimate leaves out) were made to exhaust memory, or belong to other weights.
// DataError naming `file`, what asked (`asked_by`: "its shapes ask",
// "config_network_rflow.json's diffusion_unet_def asks") and both counts, before
// anything is built. The factor is the estimate's accuracy for that network
// (2 for ResNets, whose count is near exact; 4 for the MAISI networks,
// estimated within a factor of 2).
void refuse_network_larger_than_its_file(double parameters, double stored, double factor, const std::string& file,
                                         const std::string& asked_by);

struct JobSpec;
// The same for the networks a job's task builds (model.autoencoder for the
// autoencoder, vqgan, ldm and controlnet tasks; model.diffusion_unet for ldm
// and controlnet): a stranger's job.yaml asking for 464 GB is refused naming
// `source` and the field before anything is allocated, not a bad_alloc.
void refuse_job_networks_larger_than_memory(const JobSpec& job, const std::string& source);

// A floor under the activation memory a job needs, from its sizes alone:
// training, the first convolution's output of one micro-batch (batch x
// data.patch_size voxels x the first level's channels x 2 bytes), which any
// step holds at least once; generating, the decoded volume and its copy
// (generate.output_size voxels x 4 bytes x 2). A floor, not an estimate: a
// job refused by it cannot run here, and one that passes may still not.
struct ActivationFloor {
  double bytes = 0;
  std::string field;  // what sets it: data.patch_size or generate.output_size
};
ActivationFloor activation_floor(const JobSpec& job, bool generating);

// DataError naming `source`, the field and the floor when the floor exceeds
// this machine's memory: a bad_alloc at the first step (or a 34 GB
// generate.output_size) becomes an error before anything is allocated. A job
// that trains on the CPU (training.device: cpu) is also refused when the
// planner's estimate of its step (config/job_plan.hpp) exceeds 1.5x the
// machine's memory, naming the fields and the estimate (issue 37).
void refuse_job_activations_larger_than_memory(const JobSpec& job, const std::string& source, bool generating);

}  // namespace medsynth
