// The header guard (nifti_header_guard.cpp) already reads a .nii to the end
// of its data and a .nii.gz through its gzip trailer; this only chooses the
// options for a file of our own.
#include "volume/written_nifti_check.hpp"

#include <limits>

#include "volume/nifti_header_guard.hpp"

namespace medsynth {

void check_written_nifti(const std::string& path) {
  VolumeReadOptions options;
  options.max_voxels = std::numeric_limits<std::uint64_t>::max();
  options.max_bytes = std::numeric_limits<std::uint64_t>::max();
  options.reject_non_finite = false;  // what was written is judged by its writer, not here
  // The channel variant accepts 3D files too: one check for both writers.
  (void)check_nifti_channel_file(path, options);
}

}  // namespace medsynth
