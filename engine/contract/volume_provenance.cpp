#include "contract/volume_provenance.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "volume/nifti_extension.hpp"

namespace medsynth {
namespace {

bool is_nifti_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto ends_with = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with(".nii") || ends_with(".nii.gz");
}

}  // namespace

std::optional<GenerationProvenance> read_volume_provenance(const std::string& file) {
  if (!is_nifti_name(file) || !std::filesystem::is_regular_file(file)) return std::nullopt;
  for (const auto& text : read_nifti_comment_extensions(file))
    if (auto p = parse_provenance(text, file)) return p;
  return std::nullopt;
}

std::string provenance_summary(const GenerationProvenance& p) {
  const std::string a = " " + p.hash_algorithm + " ";
  std::string line = "seed " + std::to_string(p.seed) + ", unet checkpoint" + a + p.unet_checkpoint_hash +
                     ", autoencoder checkpoint" + a + p.autoencoder_checkpoint_hash;
  if (!p.controlnet_checkpoint_hash.empty())
    line += ", controlnet checkpoint" + a + p.controlnet_checkpoint_hash + ", label" + a + p.label_hash;
  return line + ", " + p.scheduler + " " + std::to_string(p.num_inference_steps) + " steps, medsynth " +
         p.engine_version;
}

}  // namespace medsynth
