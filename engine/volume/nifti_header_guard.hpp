// The NIfTI header guard: reads and checks a .nii/.nii.gz header and the length
// of its data itself, before ITK opens the file. ITK 5.2 silently accepts
// truncated data, absurd dims (allocating gigabytes for a tiny file),
// vox_offset 0/NaN/past the end, pixdim 0/NaN and bad magic
// (shared/design/PLATFORM-NOTES.md; RELIABILITY.md items 14-19, 21).
// Called by read_volume for every NIfTI path, and by tests directly.
// No ITK here: the header is decoded by hand and .nii.gz is inflated with zlib
// in a bounded buffer, so checking costs no allocation proportional to the file.
//
// Policy (what is an error, what a warning):
//  - errors (DataError): not NIfTI (size, magic), .hdr/.img pairs ("ni1"/"ni2"),
//    dim[0] outside 1..7, a used dim <= 0, more than 3 axes longer than 1 (for
//    check_nifti_channel_file: more than 4, the 4th being channels), fewer
//    than 3 axes, voxel count or byte count over the caps (or overflowing),
//    unknown datatype, bitpix not matching it, non-scalar datatypes
//    (complex, RGB, binary), pixdim[1..3] not finite and > 0, scl_slope or
//    scl_inter not finite, qform/sform values (when used) not finite or beyond
//    1e9 (ITK hangs on some near FLT_MAX), vox_offset NaN/negative/fractional/
//    inside the header/past the end, malformed extensions, data shorter than declared, a .nii.gz
//    inflating beyond what its header declares (plus k_gzip_slack_bytes), a
//    corrupt gzip stream, a .nii file that is in fact gzip-compressed, and
//    NaN/Inf voxels in float data when options.reject_non_finite (niftilib
//    inside ITK turns them into 0, so only the guard can see them);
//  - warnings (NiftiHeaderInfo::warnings): qform and sform both set but
//    disagreeing (rotation > 1e-3, spacing > 1e-3 relative, offset > 0.1 mm).
//    Real pipelines (SPM, FSL after registration) legitimately write two
//    different transforms, so refusing them would refuse valid data; the
//    warning tells the user which file's orientation is ambiguous. NaN/Inf
//    voxels when !options.reject_non_finite are a warning too ("read as 0").
//  - trailing bytes after the data of an uncompressed .nii are accepted (as
//    nibabel and nifti_clib do).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "volume/volume_io.hpp"

namespace medsynth {

// How far a .nii.gz may inflate past vox_offset + declared data before it is
// refused: room for writers that pad, small enough that a gzip bomb stops early.
inline constexpr std::uint64_t k_gzip_slack_bytes = 1ull << 20;

// What the guard learned from a header that passed every check.
struct NiftiHeaderInfo {
  int version = 1;                 // 1 (348-byte header) or 2 (540-byte header)
  bool byte_swapped = false;       // stored in the other byte order than this machine's
  bool compressed = false;         // the file is a gzip stream
  int ndim = 3;                    // dim[0]
  std::array<std::int64_t, 3> size{0, 0, 0};  // dim[1..3]
  std::array<double, 3> spacing{1, 1, 1};     // pixdim[1..3]
  std::int64_t channels = 1;                  // dim[4] for check_nifti_channel_file, else 1
  int datatype = 0;                // NIFTI_TYPE_* code
  int bitpix = 0;
  std::uint64_t vox_offset = 0;    // where the voxel data starts
  std::uint64_t voxel_count = 0;   // product of the used dims
  std::uint64_t data_bytes = 0;    // voxel_count * bitpix / 8
  std::uint64_t data_bytes_found = 0;  // bytes present after vox_offset (>= data_bytes)
  std::uint64_t non_finite_voxels = 0; // NaN/Inf in float data (counted only when the file is float)
  int extension_count = 0;
  int qform_code = 0;
  int sform_code = 0;
  std::vector<std::string> warnings;  // lenient findings, see the policy above
};

// Checks `path` as described above; returns what it found or throws
// DataError(path, reason). Never allocates more than a small fixed buffer.
NiftiHeaderInfo check_nifti_file(const std::string& path, const VolumeReadOptions& options = {});
// The same checks for a 3D volume with channels on the 4th axis ([X, Y, Z, C],
// as NV-Generate stores latents): dim[4] > 1 is accepted, a 5th axis longer
// than 1 is not. Kept apart from check_nifti_file so that a 3D reader never
// takes channel 0 of a 4D file silently. The caps count every channel.
NiftiHeaderInfo check_nifti_channel_file(const std::string& path, const VolumeReadOptions& options = {});

// The name of a NIfTI datatype code ("int16", "float32", ...) or "unknown".
std::string nifti_datatype_name(int datatype);

}  // namespace medsynth
