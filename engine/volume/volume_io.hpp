// Reading and writing volumes: NIfTI-1 (.nii, .nii.gz), NRRD (.nrrd, .nhdr),
// MetaImage (.mha, .mhd) files and DICOM series folders in, NIfTI out.
// Called by the engine's datasets, by `generate` to save samples, and by the
// GUI's viewer (which links medsynth_volume but not LibTorch). ITK does the
// decoding, behind this header: no ITK type leaks out. Every unusable input
// becomes a DataError naming the file; NIfTI files are checked by the NIfTI
// header guard before ITK sees them, because ITK 5.2 accepts truncated or
// absurd headers silently (docs: shared/design/PLATFORM-NOTES.md); NRRD and
// MetaImage headers are checked on what ITK parsed, before the voxels are read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volume/volume.hpp"

namespace medsynth {

// Limits that keep a hostile or broken file from exhausting memory. The caps
// are checked against what a header declares, before anything is allocated.
struct VolumeReadOptions {
  std::uint64_t max_voxels = 512ull * 512 * 1024;  // 256 Mi voxels = 1 GiB as float
  std::uint64_t max_bytes = 4ull << 30;            // voxel data as stored in the file
  // NaN/Inf voxels -> DataError. When false, a NIfTI file's NaN/Inf come back
  // as 0 (niftilib inside ITK zeroes them) and a warning says how many.
  bool reject_non_finite = true;
};

// Reads a 3D scalar volume as float, geometry as ITK reports it (LPS):
//  - "x.nii" or "x.nii.gz": checked by check_nifti_file, then read by ITK;
//  - "x.nrrd"/"x.nhdr" (NRRD) or "x.mha"/"x.mhd" (MetaImage), any case: the
//    header is read by ITK and checked (scalar, 3D, caps, spacing, direction)
//    before the voxels are;
//  - a folder: the first DICOM series in it (GDCM), voxel count capped.
// A 4D NIfTI/NRRD/MetaImage whose extra axes all have length 1 is read as 3D.
// Throws DataError(path, reason) for anything it cannot use. Lenient findings
// (qform/sform disagreeing) go to *warnings when given; they are not errors.
Volume read_volume(const std::string& path, const VolumeReadOptions& options = {},
                   std::vector<std::string>* warnings = nullptr);

// How write_volume stores the voxels: float32, or int16 rounded to whole
// values (NV-Generate's image-from-mask output; generate.label_image_int16),
// or as a label map: uint8 when every value is a whole number 0..255 (MAISI's
// classes, as NV-Generate writes masks), uint16 up to 65535, else float32
// (issue 53 item 10: label maps were float32, four times the bytes, and
// tools that take a float image for an intensity image showed them so).
enum class StoredPixel { float32, int16, label };

// Writes NIfTI (".nii" or ".nii.gz", chosen by the name), geometry kept.
// Atomic: a temp file beside the target is written, fsynced and renamed, so a
// reader never sees a half-written file and an existing file is replaced whole.
// The written file is read back (length, gzip trailer) before the rename.
// Throws StorageError naming the path for a full disk or file-size limit
// (exit 4), RuntimeError for any other failure (bad volume, bad name, I/O).
void write_volume(const Volume& volume, const std::string& path, StoredPixel stored = StoredPixel::float32);

// One line for logs: "64x64x32 voxels, spacing 1x1x2.5 mm, range [-1, 3.5]".
std::string describe_volume(const Volume& volume);

}  // namespace medsynth
