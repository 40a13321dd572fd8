// The contrasts of a case lie on one voxel grid (they are stacked as
// channels, never resampled onto each other): checked for every case of a
// split before step 0, as every other header check is (issue 50; before, a
// case was checked only when a batch first drew it, and a short run could
// end without ever seeing a mis-gridded one).
#pragma once

#include <cstddef>
#include <vector>

#include "data/volume_dataset.hpp"
#include "volume/volume.hpp"

namespace medsynth {

// The DataError of case `item` whose `other` contrast's volume `v` is not on
// `first`'s grid `reference`: names other's file, the case and first's file.
[[noreturn]] void throw_contrast_off_grid(const VolumeDataset& other, const VolumeDataset& first, std::size_t item);

// Checks that `v`, item `item` of `other`, lies on `reference`, the same item of `first`.
void check_contrast_grid(const Volume& v, const Volume& reference, const VolumeDataset& other,
                         const VolumeDataset& first, std::size_t item);

// Every case of `first` against the same case of each of `others`: by the
// grids their headers state where both have one and agree (the preprocessing
// maps one grid to one grid), else by the preprocessed volumes themselves
// (DICOM series, or headers that differ but may resample to one grid).
void check_case_grids(const VolumeDataset& first, const std::vector<const VolumeDataset*>& others);

}  // namespace medsynth
