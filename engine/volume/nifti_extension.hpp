// NIfTI-1 header extensions of code 6 (NIFTI_ECODE_COMMENT, free text), the
// place a generated volume carries its provenance: readers that do not know
// them skip them (nibabel shows them as comments; ITK ignores them). We write
// them ourselves because ITK 5.2's NIfTI writer has no way to add one.
// No LibTorch here.
#pragma once

#include <string>
#include <vector>

namespace medsynth {

// Rewrites the single-file NIfTI-1 `path` (.nii or .nii.gz, as it is) with
// `text` appended as a comment extension (padded with NULs to a multiple of
// 16 bytes), vox_offset moved past it; existing extensions stay. Atomic: the
// old file stays on any failure. Throws DataError naming the file when it is
// not a single-file NIfTI-1 (magic "n+1"), RuntimeError when it cannot be written.
void add_nifti_comment_extension(const std::string& path, const std::string& text);

// The texts of its comment extensions, in file order (trailing NULs removed);
// none for a big-endian or NIfTI-2 file, which medsynth never writes.
// DataError naming the file for a malformed header or extension list.
std::vector<std::string> read_nifti_comment_extensions(const std::string& path);

}  // namespace medsynth
