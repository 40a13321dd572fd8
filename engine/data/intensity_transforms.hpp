// Intensity normalisation of training volumes, applied in place by the
// dataset's preprocessing (preprocess.hpp) and by anything that must see
// volumes the way the model saw them (generate, eval). Output range is [0, 1]
// for both modalities, so "air" (or background) is 0 after normalisation.
#pragma once

#include "volume/volume.hpp"

namespace medsynth {

// CT: clips to [lo_hu, hi_hu] and maps linearly to [0, 1] — MONAI's
// ScaleIntensityRange(a_min=lo, a_max=hi, b_min=0, b_max=1, clip=True), which
// MAISI uses with -1000/1000. Throws ConfigError (data.ct_window) unless lo < hi.
void apply_ct_window(Volume& volume, double lo_hu, double hi_hu);

// The q-th percentile (0..100) of the voxels, interpolated linearly between
// the two nearest ranks (numpy's default). The volume must not be empty.
double volume_percentile(const Volume& volume, double q);

// MRI: maps the lo/hi percentiles of the voxels to 0 and 1, clipped to [0, 1]
// (MONAI ScaleIntensityRangePercentiles with clip). Documented corner case: when
// the two percentiles are equal (a constant volume, or one dominated by a single
// value) every voxel becomes 0 — there is no contrast to normalise, and a
// division by zero would fill the volume with NaN. Throws ConfigError
// (data.mri_percentiles) unless 0 <= lo < hi <= 100.
// `clip` false keeps values beyond the percentiles (below 0, above 1), as
// MONAI's ScaleIntensityRangePercentiles(clip=False) in NV-Generate's MR preparation.
void normalize_percentiles(Volume& volume, double lo_percentile, double hi_percentile, bool clip = true);

}  // namespace medsynth
