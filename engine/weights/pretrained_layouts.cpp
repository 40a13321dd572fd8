#include "weights/pretrained_layouts.hpp"

namespace medsynth {
namespace {

// Tencent MedicalNet (Chen et al. 2019, "Med3D"): resnet_{10,18,34,50,...}.pth,
// trained for segmentation, saved from a DataParallel model (the `module.`
// prefix is dropped by weights/torch_archive's state_dict_of).
PretrainedLayout medicalnet() {
  PretrainedLayout l;
  l.name = "MedicalNet 3D ResNet";
  l.signature = "conv_seg.*";
  l.file_only = {{"conv_seg.*", "MedicalNet's segmentation head (our network has its own head)"}};
  l.network_only = {{"fc.*", "our risk head (MedicalNet has a segmentation head instead)"},
                    {"covariate_fc.*", "our covariate term (MedicalNet has none)"},
                    {"*downsample.*",
                     "MedicalNet's ResNet-18 and -34 use parameter-free shortcuts (type A), ours a 1x1 convolution and "
                     "a norm (type B)"}};
  return l;
}

const std::vector<PretrainedLayout>& layouts() {
  static const std::vector<PretrainedLayout> all = {medicalnet()};
  return all;
}

}  // namespace

bool matches_pattern(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    for (std::size_t skip = 0; skip <= name.size(); ++skip)
      if (matches_pattern(pattern.substr(1), name.substr(skip))) return true;
    return false;
  }
  return !name.empty() && pattern.front() == name.front() && matches_pattern(pattern.substr(1), name.substr(1));
}

const PretrainedLayout* recognise_layout(const std::vector<std::string>& file_names) {
  for (const auto& layout : layouts())
    for (const auto& name : file_names)
      if (matches_pattern(layout.signature, name)) return &layout;
  return nullptr;
}

const std::string& reason_for(const std::vector<NameRule>& rules, const std::string& name,
                              const std::string& otherwise) {
  for (const auto& rule : rules)
    if (matches_pattern(rule.pattern, name)) return rule.why;
  return otherwise;
}

}  // namespace medsynth
