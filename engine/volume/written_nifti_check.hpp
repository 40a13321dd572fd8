// The check of a NIfTI file the engine has just written, before it takes its
// final name: ITK's NIfTI writer reports a short write only on stderr
// ("NWAD: wrote only 0 of N bytes") and returns, so the file itself is read
// back. Passed to write_file_atomically by write_volume,
// write_channel_volume and add_nifti_comment_extension.
#pragma once

#include <string>

namespace medsynth {

// Throws DataError(path, reason) unless `path` holds a whole NIfTI file: the
// header guard's checks (a header, vox_offset + every declared voxel byte),
// and for a gzip stream a full inflate up to its trailer (CRC and length).
// No size caps: those are for reading strangers' files, not our own.
void check_written_nifti(const std::string& path);

}  // namespace medsynth
