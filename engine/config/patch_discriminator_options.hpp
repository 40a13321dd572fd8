// Options of the 3D PatchGAN discriminator (models/patch_discriminator.hpp,
// MONAI PatchDiscriminator). The job's model.discriminator section is these
// plus when the adversarial term starts (job_spec.hpp, DiscriminatorSpec), so
// the file's fields and the network's options are one struct; the rest are
// MONAI's defaults, set in code. Torch-free, in medsynth_config: problems()
// is the one set of rules, run by validate_job() and by the network's
// constructor through validate().
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

enum class DiscriminatorNorm { instance, group };

struct PatchDiscriminatorOptions {
  int num_layers_d = 3;               // strided layers after the first; the last of them has stride 1 (MAISI: 3)
  int channels = 32;                  // first layer's filters, doubled per layer (MAISI: 32)
  // Not job fields.
  int spatial_dims = 3;  // 3, or 2 for slices (the VQ-GAN's slice discriminator)
  int in_channels = 1;
  int out_channels = 1;
  int kernel_size = 4;
  double negative_slope = 0.2;        // LeakyReLU
  DiscriminatorNorm norm = DiscriminatorNorm::instance;
  int norm_num_groups = 8;            // for norm == group; must divide every layer's channels
  double init_std = 0.02;             // N(0, std) conv weights, zero biases (MONAI normal_init)

  // Every problem, named "model.discriminator.<field>": the field rows'
  // ranges (job_fields.cpp), then the rules they cannot say.
  std::vector<FieldError> problems() const;
  // Throws UsageError listing problems().
  void validate() const;
  // Logit grid size along an axis of `input_size` voxels (< 1: too small).
  std::int64_t output_size(std::int64_t input_size) const;

  bool operator==(const PatchDiscriminatorOptions&) const = default;
};

}  // namespace medsynth
