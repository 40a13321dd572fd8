// The check of a volume file before a training run starts: everything
// read_volume would refuse about the file's header and the length of its
// data, and NaN/Inf voxels, reading no more of the file than that needs.
// Called by VolumeDataset for every file of a training or validation split,
// so that a bad file among hundreds fails before step 0, naming itself, and
// not at step 5000.
#pragma once

#include <string>

#include "volume/header_grid.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {

// By extension (any case; core/volume_file_names.hpp):
//  - .nii/.nii.gz: the NIfTI header guard (check_nifti_file: header, caps,
//    data length, and non-finite float voxels when options say so);
//  - .nrrd/.nhdr, .mha/.mhd: the header as ITK parses it, with the same caps
//    and messages as NIfTI (volume_size_checks.hpp), the data length of raw
//    NRRD and uncompressed MetaImage, and (float data, when options say so)
//    NaN/Inf voxels, for which the file is read once.
// Throws DataError(path, reason), the same as read_volume would, for a file
// that fails; DataError for a name that is no volume file. DICOM folders are
// not checked here (read_volume selects and checks their series).
// Returns the grid the header states (for NIfTI, dim[1..3] and pixdim[1..3]).
HeaderGrid check_volume_file(const std::string& path, const VolumeReadOptions& options = {});

}  // namespace medsynth
