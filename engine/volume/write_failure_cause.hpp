// Why a write came out short, for writers that do not say: ITK's NIfTI writer
// prints "NWAD: wrote only 0 of N bytes" and returns, DCMTK reports a bare
// "write error". The errno they lost decides the exit code (storage, 4, for a
// full disk or a file-size limit; a restart cannot help), so it is found
// again from the cut file. Called by write_file_atomically on any failure,
// before it removes the temp file.
#pragma once

#include <string>

namespace medsynth {

// EFBIG when `path` has reached getrlimit(RLIMIT_FSIZE) or one more byte
// appended to it is refused with EFBIG; ENOSPC/EDQUOT when that byte is
// refused so, or when its file system has no block left for the user
// (statvfs); 0 when none of these holds (the failure was something else).
// The probe byte changes `path`: call it only on a file about to be removed.
int storage_cause_of_failed_write(const std::string& path);

}  // namespace medsynth
