// Writing a Volume as a DICOM series (one CT or MR file per slice) so that a
// PACS or a DICOM viewer can open a generated image. Called by the engine's
// `export-dicom` verb; the GUI may call it too (no LibTorch, no ITK types here).
// Every file says it is synthetic (ImageType DERIVED\SECONDARY, ImageComments,
// DerivationDescription, BurnedInAnnotation NO); docs/dicom-export.md lists the
// tags and why no DICOM-SEG is written for label maps.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "volume/volume.hpp"

namespace medsynth {

enum class DicomModality { ct, mr };

struct DicomExportOptions {
  DicomModality modality = DicomModality::ct;
  std::string series_description = "medsynth synthetic volume";  // (0008,103E), at most 64 characters
  // (0010,0010) PN and (0010,0020) LO: at most 64 ASCII characters, no backslash,
  // not empty. The defaults say the image is synthetic; a caller may name the
  // series for a PACS, the synthetic mark in the other tags stays.
  std::string patient_name = "SYNTHETIC^MEDSYNTH";
  std::string patient_id = "MEDSYNTH-SYNTHETIC";
  // One line of provenance for ImageComments/DerivationDescription, e.g.
  // "seed 7, unet checkpoint sha256 9f86d0…"; empty when unknown.
  // The caller builds it from the NIfTI's provenance extension.
  std::string provenance;
  // Names the input in DataError messages (the NIfTI path, typically).
  std::string source = "volume";
  // After each slice file is written (done of total): at 512^3 the series is
  // hundreds of files, and export-dicom shows that it moves (issue 38).
  std::function<void(std::size_t done, std::size_t total)> on_slice_written;
};

// Throws UsageError naming the first bad field (series_description,
// patient_name, patient_id): too long, empty where a value is needed, a
// backslash or a character outside printable ASCII (no SpecificCharacterSet
// is written). write_dicom_series calls it first; the console calls it to
// check a dialog's fields before it starts.
void check_dicom_export_options(const DicomExportOptions& options);

// Stored values, per file: stored = round((value - intercept) / slope) as int16.
struct DicomRescale {
  double slope = 1.0;
  double intercept = 0.0;
};

// The rescale write_dicom_series uses for values in [min, max]. CT: slope 1 and
// intercept -1024 when that fits int16, else intercept at the middle of the
// range, else (a span over 65535) slope span/65535. MR: slope 1, intercept 0
// when the values fit int16 and span at least 256 units; otherwise the range
// is mapped onto 0..4095 (12 bits).
DicomRescale choose_dicom_rescale(DicomModality modality, float min, float max);

// Writes `volume` as files out_dir/slice_0001.dcm ... (one per z index), with
// new Study/Series/FrameOfReference UIDs and one SOPInstanceUID per file.
// Geometry comes from the volume (LPS); a left-handed direction matrix is
// written with the slices in reverse order, so the series describes the same
// voxels in space. The files go into a temp folder beside out_dir, renamed to
// out_dir at the end: out_dir must not exist or be an empty folder.
// Throws UsageError (out_dir in use, bad option, naming the field), DataError
// (options.source: empty volume, non-finite voxels, sheared direction),
// RuntimeError/StorageError (writing failed; the temp folder is removed).
void write_dicom_series(const Volume& volume, const DicomExportOptions& options, const std::string& out_dir);

}  // namespace medsynth
