// Per-label HU check, the way MAISI's quality check judges generated CT per
// organ: for every label value, each case's median HU inside that label
// (numpy's, eval/median.hpp: the organ quality check's too); a
// generated case is out of range for a label when its median falls outside
// the [min, max] of the reference cases' medians for the same label. Label
// maps are found beside the volumes, as `generate --label` writes them
// (X_image.nii.gz beside X_label.nii.gz; other volume formats the same way,
// core/volume_file_names.hpp). Used by eval/evaluation.cpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

// The label map beside `image_path` (..._image.EXT -> ..._label.EXT for any
// volume extension EXT, e.g. .nii.gz or .nrrd), if it exists.
std::optional<std::string> sibling_label_path(const std::string& image_path);

// Median HU per label value (0, the background, left out) of one case.
// DataError naming `label_path` when the label is not on the image's grid.
std::map<int, double> label_medians(const Volume& image, const Volume& label, const std::string& label_path);

struct LabelHuRow {
  int label = 0;
  double reference_min = 0, reference_max = 0;    // of the reference cases' medians
  double generated_min = 0, generated_max = 0;
  std::size_t generated_cases = 0, reference_cases = 0;
  std::size_t generated_outside = 0;              // generated cases whose median is outside the reference's range
};

// One row per label present in both sets, by label value.
std::vector<LabelHuRow> compare_label_medians(const std::vector<std::map<int, double>>& generated,
                                              const std::vector<std::map<int, double>>& reference);

}  // namespace medsynth
