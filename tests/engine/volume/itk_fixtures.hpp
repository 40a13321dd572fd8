// Files written directly with ITK (not through medsynth's writer), so the
// reader is tested on inputs it did not produce itself: an int16 NIfTI, a 4D
// NIfTI, a DICOM series, and NRRD/MetaImage files (3D, 4D, 2-component). Used by the medsynth_volume tests only.
#pragma once

#include <filesystem>

#include "volume/volume.hpp"

namespace medsynth::test {

// Writes `volume` (values rounded to int16) as NIfTI with ITK.
void write_int16_nifti_with_itk(const Volume& volume, const std::filesystem::path& path);

// Writes `volume` as float64 NIfTI with ITK (NaN/Inf kept as they are).
void write_float64_nifti_with_itk(const Volume& volume, const std::filesystem::path& path);

// Writes a 4D float NIfTI of size volume.size x t, each time point a copy of
// the volume's voxels plus its index.
void write_4d_nifti_with_itk(const Volume& volume, std::size_t t, const std::filesystem::path& path);

// Writes `volume` (values rounded to int16) as one DICOM file per z slice
// (CT Image Storage, one series) into `folder`, with positions along the
// volume's third axis. With compressed, the pixel data is lossless JPEG
// (encapsulated, explicit VR); otherwise native, implicit VR.
void write_dicom_series_with_itk(const Volume& volume, const std::filesystem::path& folder, bool compressed = false);

// NRRD or MetaImage, chosen here; ITK picks attached (.nrrd, .mha) or
// detached header + data file (.nhdr, .mhd) by the name's extension.
enum class TextHeaderFormat { nrrd, meta };

// Writes `volume` as float with ITK's NrrdImageIO or MetaImageIO.
void write_float_with_itk(const Volume& volume, const std::filesystem::path& path, TextHeaderFormat format);

// Writes a 4D float file of size volume.size x t (time point k = voxels + k).
void write_4d_float_with_itk(const Volume& volume, std::size_t t, const std::filesystem::path& path,
                             TextHeaderFormat format);

// Writes a 2-component (vector) float file: (v, -v) per voxel.
void write_vector2_with_itk(const Volume& volume, const std::filesystem::path& path, TextHeaderFormat format);

}  // namespace medsynth::test
