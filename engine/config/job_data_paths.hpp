// The file-system half of validate_job(): data.path must hold something to
// train on (a folder with volume files (.nii, .nii.gz, .nrrd, .nhdr, .mha, .mhd) or DICOM series, or a CSV
// manifest with an "image" column) and checkpoint.resume must exist. Checked
// when the job is validated so that a typo fails in a second, not after the
// engine has started workers. Internal to medsynth_config.
#pragma once

#include <vector>

#include "config/job_spec.hpp"
#include "core/error.hpp"

namespace medsynth {

void check_data_path(const DataSpec& data, std::vector<FieldError>& errors);
void check_resume_path(const CheckpointSpec& checkpoint, std::vector<FieldError>& errors);

}  // namespace medsynth
