// read_volume / write_volume: choose the format by path, run the NIfTI header
// guard before ITK, refuse non-finite voxels, write atomically. The ITK calls
// themselves live in itk_nifti_io.cpp, itk_nrrd_meta_io.cpp and itk_dicom_io.cpp.
#include "volume/volume_io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/volume_file_names.hpp"
#include "volume/atomic_file.hpp"
#include "volume/dicom_series.hpp"
#include "volume/itk_volume_io.hpp"
#include "volume/nifti_header_guard.hpp"
#include "volume/written_nifti_check.hpp"

namespace medsynth {
namespace {

bool ends_with_nocase(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), s.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

std::string num(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

void check_writable(const Volume& v, const std::string& path) {
  auto fail = [&](const std::string& reason) { throw RuntimeError(path + ": cannot write: " + reason); };
  for (std::size_t s : v.size)
    if (s == 0) fail("the volume has an empty axis");
  if (v.voxels.size() != v.voxel_count())
    fail("the volume holds " + std::to_string(v.voxels.size()) + " voxels but its size says " +
         std::to_string(v.voxel_count()));
  for (double s : v.spacing)
    if (!std::isfinite(s) || s <= 0) fail("spacing " + num(s) + " is not a finite number > 0");
  for (double o : v.origin)
    if (!std::isfinite(o)) fail("the origin is not finite");
  for (double d : v.direction)
    if (!std::isfinite(d)) fail("the direction matrix is not finite");
  // NIfTI-1 stores dims as int16.
  for (std::size_t s : v.size)
    if (s > 32767) fail("axis length " + std::to_string(s) + " exceeds NIfTI-1's limit of 32767");
}

void reject_non_finite(const Volume& v, const std::string& path) {
  const auto bad = std::count_if(v.voxels.begin(), v.voxels.end(), [](float x) { return !std::isfinite(x); });
  if (bad > 0) throw DataError(path, "contains " + std::to_string(bad) + " non-finite voxels (NaN or Inf)");
}

}  // namespace

Volume read_volume(const std::string& path, const VolumeReadOptions& options, std::vector<std::string>* warnings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw DataError(path, "no such file or folder");

  std::vector<std::string> found;
  Volume volume;
  if (fs::is_directory(status)) {
    const DicomSeriesSelection series = select_dicom_series(path, options, found);
    volume = itk_detail::read_dicom_files(path, series.files);
  } else if (!nifti_extension(path).empty()) {
    NiftiHeaderInfo info = check_nifti_file(path, options);
    if (info.version == 2)
      throw DataError(path, "is NIfTI-2, which the ITK this engine is built with (5.2) cannot read; "
                            "save it as NIfTI-1 (e.g. nibabel.Nifti1Image)");
    volume = itk_detail::read_nifti(path);
    const std::array<std::size_t, 3> expected{static_cast<std::size_t>(info.size[0]),
                                              static_cast<std::size_t>(info.size[1]),
                                              static_cast<std::size_t>(info.size[2])};
    if (volume.size != expected)
      throw DataError(path, "ITK read a volume of another size than its header declares");
    found = std::move(info.warnings);
  } else if (ends_with_nocase(path, ".nrrd") || ends_with_nocase(path, ".nhdr")) {
    volume = itk_detail::read_nrrd_or_meta(path, itk_detail::TextHeaderFormat::nrrd, options);
  } else if (ends_with_nocase(path, ".mha") || ends_with_nocase(path, ".mhd")) {
    volume = itk_detail::read_nrrd_or_meta(path, itk_detail::TextHeaderFormat::meta, options);
  } else if (ends_with_nocase(path, ".dcm")) {
    throw DataError(path, "is a single DICOM file; pass the folder that holds the series");
  } else {
    throw DataError(path, "unsupported file type: expected " + std::string(k_volume_file_extensions_text) +
                              " or a folder with a DICOM series");
  }

  if (options.reject_non_finite) reject_non_finite(volume, path);
  if (warnings) warnings->insert(warnings->end(), found.begin(), found.end());
  return volume;
}

void write_volume(const Volume& volume, const std::string& path, StoredPixel stored) {
  const std::string extension = nifti_extension(path);
  if (extension.empty()) throw RuntimeError(path + ": cannot write: the name must end in .nii or .nii.gz");
  check_writable(volume, path);
  write_file_atomically(
      path, extension, [&](const std::string& temp) { itk_detail::write_nifti(volume, temp, stored); },
      check_written_nifti);
}

std::string describe_volume(const Volume& volume) {
  std::ostringstream out;
  out << volume.size[0] << "x" << volume.size[1] << "x" << volume.size[2] << " voxels, spacing "
      << num(volume.spacing[0]) << "x" << num(volume.spacing[1]) << "x" << num(volume.spacing[2]) << " mm";
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  std::size_t non_finite = 0;
  for (float x : volume.voxels) {
    if (!std::isfinite(x)) {
      ++non_finite;
      continue;
    }
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (lo <= hi) out << ", range [" << num(lo) << ", " << num(hi) << "]";
  else out << ", no finite voxels";
  if (non_finite > 0) out << ", " << non_finite << " non-finite";
  return out.str();
}

}  // namespace medsynth
