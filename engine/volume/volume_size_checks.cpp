// See volume_size_checks.hpp. The messages are part of the tested behaviour
// (nifti_header_guard_test, nrrd_mha_io_test): change them in both places.
#include "volume/volume_size_checks.hpp"

#include "core/error.hpp"

namespace medsynth {

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(dims[i]);
  }
  return out;
}

std::uint64_t checked_voxel_count(const std::string& path, const std::vector<std::int64_t>& dims,
                                  const VolumeReadOptions& options) {
  std::uint64_t voxels = 1;
  for (std::int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(voxels, static_cast<std::uint64_t>(d), &voxels))
      throw DataError(path, "declares " + dims_text(dims) + " voxels, a count that overflows 64 bits");
  if (voxels > options.max_voxels)
    throw DataError(path, "declares " + std::to_string(voxels) + " voxels (" + dims_text(dims) +
                              "), over the cap of " + std::to_string(options.max_voxels));
  return voxels;
}

std::uint64_t checked_data_bytes(const std::string& path, std::uint64_t voxels, std::uint64_t bytes_per_voxel,
                                 const VolumeReadOptions& options) {
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(voxels, bytes_per_voxel, &bytes))
    throw DataError(path, "declares " + std::to_string(voxels) + " voxels whose byte count overflows 64 bits");
  if (bytes > options.max_bytes)
    throw DataError(path, "declares " + std::to_string(bytes) + " bytes of voxel data, over the cap of " +
                              std::to_string(options.max_bytes));
  return bytes;
}

}  // namespace medsynth
