// The user's feature network for FID: released weights loaded by name through
// the restricted reader (MedicalNet's 3D ResNet-10/50 for 3D, RadImageNet's
// 2D ResNet-50 for 2.5D slices; models/resnet_feature_weights), or, only when
// the user trusts it, a TorchScript file (torch.jit.save of any network: a
// program, which runs its author's code when loaded; docs/reliability.md).
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
  // DataError naming the file when it is missing, or neither weights the
  // restricted reader accepts nor (with trust_torchscript) TorchScript.
  explicit FeatureNetwork(const std::string& path, bool trust_torchscript = false);
  ~FeatureNetwork();
  FeatureNetwork(const FeatureNetwork&) = delete;
  FeatureNetwork& operator=(const FeatureNetwork&) = delete;

  // [N, C, ...] in, [N, F] out (float64, CPU). RuntimeError naming the file
  // and the input shape when the module refuses the input.
  at::Tensor features(const at::Tensor& input) const;
  const std::string& path() const { return path_; }
  bool is_torchscript() const { return torchscript_; }

 private:
  struct Module;
  std::string path_;
  std::unique_ptr<Module> module_;
  bool torchscript_ = false;
};

}  // namespace medsynth
