// Published pretrained weights we recognise, and why some of their tensors, or
// some of our network's, have no counterpart. The names themselves need no
// mapping: MedicalNet's 3D ResNets name their layers as MONAI does and as our
// survival ResNet (models/resnet3d.hpp) does (conv1, bn1, layerL.B.convK /
// bnK, layerL.B.downsample.0/.1), so a tensor loads when its name is the
// network's. What differs is the heads and, for ResNet-18/34, the shortcut;
// this file only says so, for partial_state_loading's report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace medsynth {

struct NameRule {
  std::string pattern;  // '*' matches any run of characters, dots included
  std::string why;
};

struct PretrainedLayout {
  std::string name;                    // "MedicalNet 3D ResNet"
  std::string signature;               // a pattern that some name of such a file, and of no other, matches
  std::vector<NameRule> file_only;     // its tensors that our networks lack
  std::vector<NameRule> network_only;  // our tensors that such a file lacks
};

// The layout whose signature one of `file_names` matches, or nullptr.
const PretrainedLayout* recognise_layout(const std::vector<std::string>& file_names);

bool matches_pattern(std::string_view pattern, std::string_view name);

// The `why` of the first rule `name` matches, else `otherwise`.
const std::string& reason_for(const std::vector<NameRule>& rules, const std::string& name,
                              const std::string& otherwise);

}  // namespace medsynth
