// Feature networks from released weights, loaded by name (no Python). A 3D ResNet from MedicalNet-style weights: a torch.save
// state dict (MedicalNet's `{'state_dict': ...}` with `module.` prefixes,
// legacy or zip format, read by weights/torch_archive.hpp) loaded by name into
// our ResNet3d (models/resnet3d.hpp), the way MONAI's
// `resnet{10,50}(pretrained=True, feed_forward=False, shortcut_type="B",
// bias_downsample=False)` loads them: MONAI's layout (conv1 7^3 stride 1,
// max-pool, stride-2 layers), the pooled layer4 output as features. Depth and
// widths come from the weights' shapes. Used by eval/feature_network.cpp.
#pragma once

#include <map>
#include <string>

#include <ATen/core/Tensor.h>

#include "models/radimagenet_resnet.hpp"
#include "models/resnet3d.hpp"

namespace medsynth {

// DataError naming `path` when the names or shapes are not a ResNet-10/50
// with shortcut B (MedicalNet's 18/34 use shortcut A, which has no weights
// and is not built), or any name is left over (a classifier `fc` and
// MedicalNet's segmentation head `conv_seg` are dropped: features come
// before them).
ResNet3d resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path);

// The same weights in MedicalNet's own layout, the one torch.hub
// "Warvito/MedicalNet-models" builds and MONAI's MedicalNet perceptual loss
// runs (conv1 7^3 stride 2, max-pool, layer2 stride 2, layer3/layer4 stride 1
// dilated by 2/4; the names are the same, the network is not). Same checks.
ResNet3d medicalnet_resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path);

// RadImageNet's 2D ResNet-50 (`RadImageNet-ResNet50_notop.pth` as torch.hub's
// "Warvito/radimagenet-models" saves it; models/radimagenet_resnet.hpp), the
// network of NV-Generate's 2.5D FID. DataError naming `path` when a name or
// shape does not match, or the convolutions have no biases (torchvision's
// layout, which strides elsewhere: features would be silently different).
RadImageNetResNet radimagenet_resnet_from_state_dict(const std::map<std::string, at::Tensor>& weights, const std::string& path);

}  // namespace medsynth
