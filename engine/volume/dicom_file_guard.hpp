// The DICOM file guard: walks the element structure of one DICOM Part 10 file
// itself, checking every length against the file, before GDCM sees it. GDCM
// (Debian's build, with assertions on) aborts the whole process on a file cut
// inside its meta header, and silently pads pixel data that is cut short
// (RELIABILITY.md item 20). Called by dicom_series.cpp for every file of a
// folder; public so tests can call it on hand-made files.
//
// Refused with DataError(file, reason): elements or items whose length runs
// past the end of the file or of their parent, sequences nested deeper than
// 32, a missing or bad meta header after "DICM", the deflated transfer syntax
// (which cannot be walked without inflating), BitsAllocated other than 8, 16
// or 32 (1 in a segmentation, Modality SEG), Rows/Columns of 0, native pixel data shorter than
// Rows x Columns x SamplesPerPixel x BitsAllocated/8 x NumberOfFrames,
// PhotometricInterpretation other than MONOCHROME1/2, PixelSpacing that is not
// two finite numbers > 0 (GDCM reads 0 or -1 as 1 mm), and images over the
// voxel cap.
// Not covered: the bitstream inside compressed (encapsulated) pixel data.
// GDCM's JPEG codecs can still abort on a corrupt one (fuzzing: 2 of 1500
// mutated lossless-JPEG files); guarding that would mean decoding it here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "volume/volume_io.hpp"

namespace medsynth {

// What the series reader needs from one file that passed the guard.
struct DicomFileInfo {
  std::string path;
  std::string transfer_syntax;      // (0002,0010)
  std::string series_uid;           // (0020,000E), "" if absent
  std::string modality;             // (0008,0060): "SEG" for a segmentation, which is no image to read
  bool has_pixels = false;          // (7FE0,0010) present: an image, not e.g. a report
  bool encapsulated = false;        // compressed pixel data (fragments)
  std::uint32_t rows = 0;           // (0028,0010)
  std::uint32_t columns = 0;        // (0028,0011)
  std::uint32_t bits_allocated = 0; // (0028,0100)
  std::uint32_t samples_per_pixel = 1;  // (0028,0002)
  std::string photometric;              // (0028,0004) PhotometricInterpretation, "" if absent
  std::uint64_t frames = 1;         // (0028,0008)
  std::optional<std::array<double, 3>> position;     // (0020,0032) ImagePositionPatient
  std::optional<std::array<double, 6>> orientation;  // (0020,0037) ImageOrientationPatient
  std::optional<long long> instance_number;          // (0020,0013)
};

// Returns std::nullopt when `path` is not a DICOM Part 10 file (no "DICM" at
// offset 128): such files are ignored, not errors. Throws DataError(path, ...)
// for a DICOM file that is broken as described above.
std::optional<DicomFileInfo> check_dicom_file(const std::string& path, const VolumeReadOptions& options = {});

}  // namespace medsynth
