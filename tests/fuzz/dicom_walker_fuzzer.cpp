// libFuzzer harness: the DICOM file guard (issue 50, "beyond the list").
//
// Feeds: the input bytes, unchanged, as the file x.dcm (in a private scratch
// folder on /dev/shm) to medsynth::check_dicom_file
// (engine/volume/dicom_file_guard.cpp), twice: with the default caps and with
// caps of 4096 voxels / 8192 bytes, so that the cap checks themselves are
// reached by small inputs. This is the hand-written walker that every file of
// a DICOM folder passes (training data, `export-dicom`'s input, the console's
// viewer) before Debian's GDCM, which aborts the process on some malformed
// files, is allowed to see it.
//
// Expected outcomes: a DicomFileInfo, std::nullopt (no "DICM" at offset 128:
// not a DICOM file), or a medsynth::Error subclass (DataError naming the file).
//
// Findings: any other exception escaping (std::out_of_range from a string
// conversion, std::bad_alloc from a length taken from the file, ...: printed
// and aborted), a crash, a hang (-timeout), memory over -rss_limit_mb, every
// AddressSanitizer / UndefinedBehaviorSanitizer report, and an accepted
// image whose declared pixels overflow or exceed the caps it was given.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "volume/dicom_file_guard.hpp"

namespace {

// What the guard promises of a file it accepts with `options`.
void check_accepted(const medsynth::DicomFileInfo& info, const medsynth::VolumeReadOptions& options) {
  if (!info.has_pixels) return;
  unsigned __int128 voxels = static_cast<unsigned __int128>(info.rows) * info.columns * info.frames;
  // A one-bit SEG is bound by its stored bits (8 x the byte cap), an image by the voxel cap.
  const bool binary_seg = info.bits_allocated == 1 && info.modality == "SEG";
  const unsigned __int128 cap = binary_seg ? static_cast<unsigned __int128>(options.max_bytes) * 8 : options.max_voxels;
  if (info.rows == 0 || info.columns == 0 || voxels > cap) {
    std::fprintf(stderr, "dicom_walker_fuzzer: accepted %ux%u x %llu frames past the cap of %llu\n", info.rows,
                 info.columns, static_cast<unsigned long long>(info.frames), static_cast<unsigned long long>(cap));
    std::abort();
  }
}

void run(const std::string& path, const medsynth::VolumeReadOptions& options) {
  try {
    if (const std::optional<medsynth::DicomFileInfo> info = medsynth::check_dicom_file(path, options))
      check_accepted(*info, options);
  } catch (const medsynth::Error&) {
    // Expected: the guard refused the file, naming it.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("dicom_walker_fuzzer", "check_dicom_file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = medsynth::fuzz::ScratchDir::instance().path("x.dcm");
  medsynth::fuzz::write_file(path, data, size);
  run(path, medsynth::VolumeReadOptions{});
  medsynth::VolumeReadOptions tight;
  tight.max_voxels = 4096;
  tight.max_bytes = 8192;
  run(path, tight);
  return 0;
}
