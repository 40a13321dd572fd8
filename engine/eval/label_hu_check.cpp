#include "eval/label_hu_check.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/error.hpp"
#include "core/volume_file_names.hpp"
#include "eval/median.hpp"

namespace medsynth {

std::optional<std::string> sibling_label_path(const std::string& image_path) {
  auto label = paired_label_name(image_path);
  if (!label || !std::filesystem::is_regular_file(*label)) return std::nullopt;
  return label;
}

std::map<int, double> label_medians(const Volume& image, const Volume& label, const std::string& label_path) {
  if (image.size != label.size)
    throw DataError(label_path, "is " + std::to_string(label.size[0]) + " x " + std::to_string(label.size[1]) + " x " +
                                    std::to_string(label.size[2]) + " voxels, its image " + std::to_string(image.size[0]) + " x " +
                                    std::to_string(image.size[1]) + " x " + std::to_string(image.size[2]));
  std::map<int, std::vector<float>> values;
  for (std::size_t i = 0; i < image.voxels.size(); ++i) {
    const float l = label.voxels[i];
    if (!std::isfinite(l) || l <= 0.0f || l != std::round(l)) continue;  // background and non-labels
    values[static_cast<int>(l)].push_back(image.voxels[i]);
  }
  std::map<int, double> medians;
  for (auto& [l, v] : values) medians[l] = numpy_median(v);
  return medians;
}

std::vector<LabelHuRow> compare_label_medians(const std::vector<std::map<int, double>>& generated,
                                              const std::vector<std::map<int, double>>& reference) {
  std::map<int, LabelHuRow> rows;
  auto widen = [](double& lo, double& hi, std::size_t n, double v) {
    lo = n == 0 ? v : std::min(lo, v);
    hi = n == 0 ? v : std::max(hi, v);
  };
  for (const auto& medians : reference)
    for (const auto& [l, m] : medians) {
      auto& r = rows[l];
      r.label = l;
      widen(r.reference_min, r.reference_max, r.reference_cases++, m);
    }
  std::vector<LabelHuRow> out;
  for (auto& [l, r] : rows) {
    for (const auto& medians : generated) {
      const auto it = medians.find(l);
      if (it == medians.end()) continue;
      widen(r.generated_min, r.generated_max, r.generated_cases++, it->second);
      r.generated_outside += it->second < r.reference_min || it->second > r.reference_max;
    }
    if (r.generated_cases > 0) out.push_back(r);
  }
  return out;
}

}  // namespace medsynth
