// Choosing and ordering the files of a DICOM series folder, from headers that
// the DICOM file guard has checked, so that GDCM only ever opens files that
// passed it (GDCMSeriesFileNames would open every file in the folder).
// Private to medsynth_volume: called by read_volume before the ITK reader.
#pragma once

#include <string>
#include <vector>

#include "volume/dicom_file_guard.hpp"
#include "volume/volume_io.hpp"

namespace medsynth {

struct DicomSeriesSelection {
  std::string series_uid;
  std::vector<std::string> files;  // in slice order (along the slice normal)
};

// Scans `folder` (not recursively): files without "DICM" and DICOM files
// without pixels are ignored; a broken DICOM file throws DataError naming it.
// Picks the series with the smallest SeriesInstanceUID (GDCM's first; a
// warning names the others), checks that its slices agree in size and type,
// that the whole series fits the caps, that no two slices share a position
// and that successive positions are evenly spaced (within 1 %), and that its
// slices are more than one row high. Throws DataError(folder, ...) when there
// is no series to read or a check fails, DataError(file, ...) for a file of
// the series that has an image's attributes but no pixel data.
DicomSeriesSelection select_dicom_series(const std::string& folder, const VolumeReadOptions& options,
                                         std::vector<std::string>& warnings);

}  // namespace medsynth
