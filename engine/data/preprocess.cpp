#include "data/preprocess.hpp"

#include <cmath>

#include "core/error.hpp"
#include "data/intensity_transforms.hpp"
#include "data/spatial_transforms.hpp"

namespace medsynth {

Volume preprocess_volume(Volume volume, const DataSpec& spec, const std::string& name) {
  if (volume.voxel_count() == 0 || volume.voxels.size() != volume.voxel_count()) {
    throw DataError(name, "empty volume or voxel count not matching its size");
  }
  std::size_t non_finite = 0;
  for (float v : volume.voxels) non_finite += std::isfinite(v) ? 0 : 1;
  if (non_finite > 0) throw DataError(name, std::to_string(non_finite) + " voxels are NaN or infinite");

  // NV-Generate's order for MAISI data: orientation, intensity, resize.
  if (!spec.orientation.empty()) volume = reorient(volume, spec.orientation);
  if (spec.target_spacing) volume = resample_to_spacing(volume, *spec.target_spacing, Interpolation::linear, name);
  if (spec.modality == Modality::ct) {
    apply_ct_window(volume, spec.ct_window[0], spec.ct_window[1]);
  } else {
    normalize_percentiles(volume, spec.mri_percentiles[0], spec.mri_percentiles[1], spec.mri_clip);
  }
  return resize_to_multiple(volume, spec.size_multiple);
}

Volume preprocess_label(Volume label, const DataSpec& spec, const std::string& name) {
  if (label.voxel_count() == 0 || label.voxels.size() != label.voxel_count()) throw DataError(name, "empty label map");
  if (!spec.orientation.empty()) label = reorient(label, spec.orientation);
  if (spec.target_spacing) label = resample_to_spacing(label, *spec.target_spacing, Interpolation::nearest, name);
  return resize_to_multiple(label, spec.size_multiple, Interpolation::nearest);
}

}  // namespace medsynth
