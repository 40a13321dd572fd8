// The user's feature network for FID: a TorchScript file (torch.jit.save of
// e.g. a MedicalNet ResNet for 3D, a RadImageNet ResNet-50 for 2.5D slices).
// Nothing is downloaded: the file is the user's, and its name goes into the
// report so that two numbers can be compared. Outputs with spatial axes are
// averaged over them (MONAI's and NV-Generate's spatial_average).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>

namespace medsynth {

class FeatureNetwork {
 public:
  // DataError naming the file when it is missing or not TorchScript.
  explicit FeatureNetwork(const std::string& path);
  ~FeatureNetwork();
  FeatureNetwork(const FeatureNetwork&) = delete;
  FeatureNetwork& operator=(const FeatureNetwork&) = delete;

  // [N, C, ...] in, [N, F] out (float64, CPU). RuntimeError naming the file
  // and the input shape when the module refuses the input.
  at::Tensor features(const at::Tensor& input) const;
  const std::string& path() const { return path_; }

 private:
  struct Module;
  std::string path_;
  std::unique_ptr<Module> module_;
};

}  // namespace medsynth
