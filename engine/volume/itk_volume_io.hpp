// The ITK half of volume IO, behind plain types so only two .cpp files pay for
// ITK's headers (~4 s each). Private to medsynth_volume; called by
// volume_io.cpp (NIfTI only after the NIfTI header guard has passed the file).
// Every function turns ITK's exceptions into DataError/RuntimeError itself.
#pragma once

#include <string>
#include <vector>

#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::itk_detail {

// Reads a NIfTI-1 file that check_nifti_file accepted, as float (ITK applies
// scl_slope/scl_inter). Throws DataError(path, ...) on any ITK failure.
Volume read_nifti(const std::string& path);

// Writes float32 NIfTI to exactly `path` (not atomic: the caller renames).
// Throws RuntimeError(path: reason) on any ITK failure.
void write_nifti(const Volume& volume, const std::string& path);

// The text-header formats ITK reads itself: NRRD (.nrrd, .nhdr + data file)
// and MetaImage (.mha, .mhd + data file).
enum class TextHeaderFormat { nrrd, meta };

// Reads a NRRD or MetaImage file as float. Its header is checked first, from
// ITK's ReadImageInformation() and before any voxel is allocated: scalar,
// 3D, within the caps of `options`, spacing finite > 0, origin finite,
// direction a rotation. Throws DataError(path, ...) for those and for any ITK
// failure (truncated data, garbage). Non-finite voxels are the caller's check.
Volume read_nrrd_or_meta(const std::string& path, TextHeaderFormat format, const VolumeReadOptions& options);

// Reads the slices `files` (in order, all checked by the DICOM file guard and
// chosen by select_dicom_series) as one volume. Errors name `folder`.
Volume read_dicom_files(const std::string& folder, const std::vector<std::string>& files);

}  // namespace medsynth::itk_detail
