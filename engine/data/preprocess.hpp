// The preprocessing every training/validation volume gets before the model
// sees it: reorientation to data.orientation and resampling to
// data.target_spacing (each if set), the modality's intensity normalisation to
// [0, 1] (CT window, or MRI percentiles), then resizing to a multiple of
// data.size_multiple (if set). Called by
// VolumeDataset for each item it loads, and by generate/eval so that their
// inputs match what the model was trained on.
#pragma once

#include <string>

#include "config/job_spec.hpp"
#include "volume/volume.hpp"

namespace medsynth {

// Throws DataError(name, ...) for an empty volume or NaN/Inf voxels (the
// reader rejects those already; phantoms and callers' own volumes are checked
// here too), ConfigError for invalid window/percentile/spacing fields.
// `name` is the file (or phantom id) named in errors.
Volume preprocess_volume(Volume volume, const DataSpec& spec, const std::string& name);

// The label map of an image through the same geometry (orientation,
// spacing, size), sampled from the nearest voxel so classes stay classes; no
// intensity mapping. Its grid is the preprocessed image's when the two
// shared one.
Volume preprocess_label(Volume label, const DataSpec& spec, const std::string& name);

}  // namespace medsynth
