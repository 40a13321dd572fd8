// The size checks every file reader runs on what a header declares, before
// anything is allocated: the voxel count and the byte count against
// VolumeReadOptions' caps (and 64-bit overflow). Shared by the NIfTI header
// guard and the NRRD/MetaImage reader so that both refuse the same files with
// the same words. No ITK here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volume/volume_io.hpp"

namespace medsynth {

// "5x4x3": the declared axis lengths as messages show them.
std::string dims_text(const std::vector<std::int64_t>& dims);

// The product of `dims` (each already >= 1), or DataError(path, ...) when it
// overflows 64 bits or exceeds options.max_voxels:
// "declares 60 voxels (5x4x3), over the cap of 59".
std::uint64_t checked_voxel_count(const std::string& path, const std::vector<std::int64_t>& dims,
                                  const VolumeReadOptions& options);

// voxels * bytes_per_voxel, or DataError(path, ...) when it overflows or
// exceeds options.max_bytes: "declares 240 bytes of voxel data, over the cap of 239".
std::uint64_t checked_data_bytes(const std::string& path, std::uint64_t voxels, std::uint64_t bytes_per_voxel,
                                 const VolumeReadOptions& options);

}  // namespace medsynth
