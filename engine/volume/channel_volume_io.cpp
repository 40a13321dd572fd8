// read_channel_volume / write_channel_volume: the NIfTI header guard before
// ITK, the checks a 4D writer needs, atomic writes. The ITK calls live in
// itk_channel_volume_io.cpp.
#include "volume/channel_volume_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/error.hpp"
#include "core/volume_file_names.hpp"
#include "volume/atomic_file.hpp"
#include "volume/itk_volume_io.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/volume_size_checks.hpp"
#include "volume/written_nifti_check.hpp"

namespace medsynth {
namespace {

void check_writable(const ChannelVolume& v, const std::string& path) {
  auto fail = [&](const std::string& reason) { throw RuntimeError(path + ": cannot write: " + reason); };
  for (std::size_t s : v.size)
    if (s == 0 || s > 32767) fail("axis length " + std::to_string(s) + " is outside NIfTI-1's 1..32767");
  if (v.channels == 0 || v.channels > 32767)
    fail(std::to_string(v.channels) + " channels is outside NIfTI-1's 1..32767");
  if (v.voxels.size() != v.voxel_count())
    fail("the volume holds " + std::to_string(v.voxels.size()) + " values but its size says " +
         std::to_string(v.voxel_count()));
  for (double s : v.spacing)
    if (!std::isfinite(s) || s <= 0) fail("a spacing is not a finite number > 0");
  for (double o : v.origin)
    if (!std::isfinite(o)) fail("the origin is not finite");
  for (double d : v.direction)
    if (!std::isfinite(d)) fail("the direction matrix is not finite");
}

}  // namespace

ChannelVolume read_channel_volume(const std::string& path, const VolumeReadOptions& options) {
  if (nifti_extension(path).empty()) throw DataError(path, "is not a NIfTI file (.nii or .nii.gz)");
  const NiftiHeaderInfo info = check_nifti_channel_file(path, options);
  if (info.version == 2) throw DataError(path, "is NIfTI-2, which the ITK this engine is built with (5.2) cannot read");
  if (info.ndim < 4)
    throw DataError(path, "is a " + std::to_string(info.ndim) + "D image (" +
                              dims_text({info.size[0], info.size[1], info.size[2]}) +
                              "); a channels-last volume has a 4th axis ([X, Y, Z, C])");
  ChannelVolume volume = itk_detail::read_nifti_channels(path);
  const std::array<std::size_t, 3> expected{static_cast<std::size_t>(info.size[0]),
                                            static_cast<std::size_t>(info.size[1]),
                                            static_cast<std::size_t>(info.size[2])};
  if (volume.size != expected || volume.channels != static_cast<std::size_t>(info.channels))
    throw DataError(path, "ITK read a volume of another size than its header declares");
  return volume;
}

void write_channel_volume(const ChannelVolume& volume, const std::string& path) {
  const std::string extension = nifti_extension(path);
  if (extension.empty()) throw RuntimeError(path + ": cannot write: the name must end in .nii or .nii.gz");
  check_writable(volume, path);
  write_file_atomically(
      path, extension, [&](const std::string& temp) { itk_detail::write_nifti_channels(volume, temp); },
      check_written_nifti);
}

}  // namespace medsynth
