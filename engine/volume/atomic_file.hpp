// Atomic replacement of a file: write a temp file beside the target (same
// directory, so rename(2) is atomic; same extension, so writers that pick a
// format by name, like ITK's, still work), fsync it, check what it holds,
// rename it over the target, fsync the directory. A crash leaves either the
// old file or the new one, never half of one (RELIABILITY.md item 8); a
// write that fails without saying so (ITK's NIfTI writer prints "NWAD: wrote
// only 0 of N bytes" and returns) is caught by the check, so a cut file never
// takes the final name (issue 50 item 1). The one writer path of every file
// the engine makes: write_volume, write_channel_volume, the NIfTI comment
// extension, DICOM-SEG, and every JSON/YAML/Markdown/PNG file through
// write_string_atomically.
#pragma once

#include <functional>
#include <string>

namespace medsynth {

// Calls write(temp_path) to produce the content, then check(temp_path) (when
// given; it throws on a file that is not whole), then moves it to `path`.
// `extension` is kept at the end of the temp name (".nii.gz" gives
// ".name.tmp-XXXXXX.nii.gz"). On any failure the temp file is removed and
// "<path>: cannot write: <reason>" is thrown: StorageError (exit 4) when the
// disk, a quota or the file-size limit is full (write_failure_cause.hpp), so
// that a writer that only says "wrote less" is classified too; RuntimeError
// otherwise. `path` is untouched.
void write_file_atomically(const std::string& path, const std::string& extension,
                           const std::function<void(const std::string& temp_path)>& write,
                           const std::function<void(const std::string& temp_path)>& check = {});

// Writes `bytes` as the whole content of `path` atomically: write(2) in a loop,
// every call and the close checked, the length checked before the rename.
// For every text file (JSON, YAML, Markdown) and small binary file (PNG).
void write_string_atomically(const std::string& path, const std::string& bytes);

}  // namespace medsynth
