// The ITK half of volume IO, behind plain types so only the itk_*.cpp files pay for
// ITK's headers (~4 s each). Private to medsynth_volume; called by
// volume_io.cpp (NIfTI only after the NIfTI header guard has passed the file)
// and volume_file_check.cpp.
// Every function turns ITK's exceptions into DataError/RuntimeError itself.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "volume/header_grid.hpp"
#include "volume/channel_volume_io.hpp"
#include "volume/volume.hpp"
#include "volume/volume_io.hpp"

namespace medsynth::itk_detail {

// Reads a NIfTI-1 file that check_nifti_file accepted, as float (ITK applies
// scl_slope/scl_inter). Throws DataError(path, ...) on any ITK failure.
Volume read_nifti(const std::string& path);

// Writes NIfTI of the stored pixel type to exactly `path` (not atomic: the
// caller renames). Throws RuntimeError(path: reason) on any ITK failure.
void write_nifti(const Volume& volume, const std::string& path, StoredPixel stored = StoredPixel::float32);

// The same for a 4D file with channels on the 4th axis (check_nifti_channel_file
// accepted it; channel_volume_io.cpp). Same errors as read_nifti / write_nifti.
ChannelVolume read_nifti_channels(const std::string& path);
void write_nifti_channels(const ChannelVolume& volume, const std::string& path);

// The text-header formats ITK reads itself: NRRD (.nrrd, .nhdr + data file)
// and MetaImage (.mha, .mhd + data file).
enum class TextHeaderFormat { nrrd, meta };

// Reads a NRRD or MetaImage file as float. Its header is checked first, from
// ITK's ReadImageInformation() and before any voxel is allocated: scalar,
// 3D, within the caps of `options`, spacing finite > 0, origin finite,
// direction a rotation. Throws DataError(path, ...) for those and for any ITK
// failure (truncated data, garbage). Non-finite voxels are the caller's check.
Volume read_nrrd_or_meta(const std::string& path, TextHeaderFormat format, const VolumeReadOptions& options);

// The header checks of read_nrrd_or_meta (and the data length of raw NRRD
// and uncompressed MetaImage), and for float/double data (the only kind that
// can hold NaN/Inf) a read that refuses non-finite voxels when
// options.reject_non_finite. Integer data is not read. Same errors as the reader.
// Returns the header's grid.
HeaderGrid check_nrrd_or_meta_header(const std::string& path, TextHeaderFormat format,
                                     const VolumeReadOptions& options);

// Reads the slices `files` (in order, all checked by the DICOM file guard and
// chosen by select_dicom_series) as one volume. Errors name `folder`.
Volume read_dicom_files(const std::string& folder, const std::vector<std::string>& files);

// One slice of write_dicom_series (dicom_export.cpp), geometry in LPS.
struct DicomSlice {
  std::size_t columns = 0, rows = 0;  // x, y
  std::vector<std::int16_t> pixels;   // stored values, x fastest
  std::array<double, 3> spacing{1.0, 1.0, 1.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};
};
// ITK metadata keys ("0008|0060") and their values.
using DicomTags = std::vector<std::pair<std::string, std::string>>;

// A string element set with GDCM after ITK wrote the file (VR "DS", "LO", "CS").
struct DicomPatch {
  std::uint16_t group = 0, element = 0;
  const char* vr = "LO";
  std::string value;
};

// A new UID from GDCM's generator.
std::string new_dicom_uid();

// Writes one DICOM file (int16 pixels stored as given) to exactly `path`,
// then sets `patches` in it. Throws RuntimeError(path: reason) on any failure.
void write_dicom_slice(const std::string& path, const DicomSlice& slice, const DicomTags& tags,
                       const std::vector<DicomPatch>& patches);

}  // namespace medsynth::itk_detail
