// The perceptual loss of MONAI's `PerceptualLoss` for 3D volumes, from
// released weights the user names (loss.perceptual_network): nothing is
// downloaded, and the network never trains and is never checkpointed.
//
// The file decides the variant, by the rank of conv1's kernel:
//  - 3D (MedicalNet, e.g. resnet_10_23dataset.pth): MONAI's
//    network_type="medicalnet_resnet{10,50}_23datasets", is_fake_3d=False.
//    The batch is z-scored as one tensor, each channel goes through the
//    network on its own, the features of all channels are concatenated and
//    scaled to unit length over channels at every voxel, and the loss is the
//    squared difference summed over channels, averaged over space and batch.
//  - 2D (RadImageNet's ResNet-50 notop): network_type="radimagenet_resnet50",
//    is_fake_3d=True. Slices along each of the three axes become a batch of
//    images (grey repeated to 3 channels, BGR means subtracted), layer4's maps
//    are compared as above, and the three axes' means are summed. MONAI keeps
//    a random share `fake_3d_ratio` of each axis' slices (torch.randperm on
//    the global generator); with 1 every slice counts and the loss is
//    deterministic.
// Called by the VQ-GAN task once per micro-batch; not thread-safe (one per task).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>

namespace medsynth {

class PerceptualLoss {
 public:
  // DataError naming `path` when it is missing or not MedicalNet/RadImageNet
  // weights (models/resnet_feature_weights.hpp says which layouts load).
  explicit PerceptualLoss(const std::string& path, double fake_3d_ratio = 1.0);
  ~PerceptualLoss();
  PerceptualLoss(PerceptualLoss&&) noexcept;
  PerceptualLoss& operator=(PerceptualLoss&&) noexcept;

  // input and target [B, C, D, H, W] of one shape -> a scalar that carries
  // gradients to `input` (and `target`) but never to the network.
  at::Tensor forward(const at::Tensor& input, const at::Tensor& target);
  void to(const c10::Device& device);

  const std::string& variant() const;  // "medicalnet" | "radimagenet"

 private:
  struct Network;
  std::unique_ptr<Network> net_;
  double fake_3d_ratio_ = 1.0;
};

}  // namespace medsynth
