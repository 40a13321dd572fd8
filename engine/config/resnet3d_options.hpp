// Options of the survival workflow's 3D ResNet (models/resnet3d.hpp), under
// MONAI's names. The job holds them as model.resnet (job_spec.hpp), so the
// file's fields and the network's options are one struct; the input
// channels and the covariate count are not job fields: the survival task
// fills them in from model.autoencoder.in_channels and data.covariates.
// Torch-free, in medsynth_config: problems() is the one set of rules, run by
// validate_job() and, for networks built in code, by the ResNet3d
// constructor through validate().
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"

namespace medsynth {

struct ResNet3dOptions {
  int depth = 50;                                      // 10 | 18 | 34 | 50
  std::vector<int> block_inplanes{64, 128, 256, 512};  // channels of layer1..layer4 (x4 for depth 50; MONAI get_inplanes())
  int conv1_t_size = 7;
  int conv1_t_stride = 1;
  bool no_max_pool = false;
  std::string norm = "batch";                          // batch (MONAI) | group (8 groups; small batches)
  // Not job fields (see above).
  int n_input_channels = 1;
  int num_covariates = 0;
  // MedicalNet's own layout (Chen et al., Med3D; torch.hub Warvito/MedicalNet-models,
  // the network of MONAI's MedicalNet perceptual loss): layer3 and layer4 keep
  // their input size (stride 1) and dilate their 3^3 convolutions by 2 and 4.
  // Set by models/resnet_feature_weights, never by a job.
  bool medicalnet_dilation = false;

  // Every problem, each named by its job path ("model.resnet.depth"): the
  // ranges and choices of the field rows (job_fields.cpp), then the rules
  // the rows cannot say.
  std::vector<FieldError> problems() const;
  // Throws UsageError listing problems().
  void validate() const;

  bool operator==(const ResNet3dOptions&) const = default;
};

}  // namespace medsynth
