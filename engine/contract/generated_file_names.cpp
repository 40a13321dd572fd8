#include "contract/generated_file_names.hpp"

#include "core/error.hpp"

namespace medsynth {
namespace {

constexpr const char* k_image_suffix = "_image.nii.gz";
constexpr const char* k_label_suffix = "_label.nii.gz";
constexpr const char* k_quality_suffix = "_quality.json";
constexpr const char* k_inpaint_suffix = "_inpaint.json";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "…/x_image.nii.gz" -> "…/x"; throws for any other name.
std::string pair_stem(const std::string& image_path) {
  const std::string suffix = k_image_suffix;
  if (image_path.size() < suffix.size() ||
      image_path.compare(image_path.size() - suffix.size(), suffix.size(), suffix) != 0)
    throw RuntimeError(image_path + ": not the image of an image/label pair");
  return image_path.substr(0, image_path.size() - suffix.size());
}

}  // namespace

std::string generated_image_name(std::int64_t base_seed, int image, int world, bool paired) {
  const std::string stem = "seed" + std::to_string(base_seed + image) + "_rank" + std::to_string(image % world);
  return paired ? "sample_" + stem + k_image_suffix : "image_" + stem + ".nii.gz";
}

std::string paired_label_path(const std::string& image_path) { return pair_stem(image_path) + k_label_suffix; }

std::string quality_report_path(const std::string& image_path) { return pair_stem(image_path) + k_quality_suffix; }

std::string inpaint_report_path(const std::string& image_path) {
  if (ends_with(image_path, k_image_suffix)) return pair_stem(image_path) + k_inpaint_suffix;
  if (!ends_with(image_path, ".nii.gz")) throw RuntimeError(image_path + ": not a generated .nii.gz image");
  return image_path.substr(0, image_path.size() - std::string(".nii.gz").size()) + k_inpaint_suffix;
}

}  // namespace medsynth
