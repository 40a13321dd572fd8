// Atomic replacement of a file: write a temp file beside the target (same
// directory, so rename(2) is atomic; same extension, so writers that pick a
// format by name, like ITK's, still work), fsync it, rename it over the
// target, fsync the directory. A crash leaves either the old file or the new
// one, never half of one (RELIABILITY.md item 8). Used by write_volume.
#pragma once

#include <functional>
#include <string>

namespace medsynth {

// Calls write(temp_path) to produce the content, then moves it to `path`.
// `extension` is kept at the end of the temp name (".nii.gz" gives
// ".name.tmp-XXXXXX.nii.gz"). On any failure the temp file is removed and
// RuntimeError("<path>: cannot write: <reason>") is thrown; `path` is untouched.
void write_file_atomically(const std::string& path, const std::string& extension,
                           const std::function<void(const std::string& temp_path)>& write);

}  // namespace medsynth
