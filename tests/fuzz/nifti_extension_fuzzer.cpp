// libFuzzer harness: NIfTI comment-extension (provenance) reader.
//
// Feeds: the input's first byte chooses the mode (its low two bits), the
// rest is the payload:
//   0  payload written as x.nii;
//   1  payload gzip-compressed by the harness and written as x.nii.gz (the
//      fuzzer mutates the NIfTI bytes, zlib's reader inflates them);
//   2  payload written as x.nii.gz unchanged (the fuzzer mutates the gzip
//      stream itself: damaged deflate data, bad CRC, cut streams, bombs);
//   3  payload given directly as text to parse_provenance (its JSON, without
//      the NIfTI around it).
// For modes 0-2 the file goes to
//   - medsynth::check_nifti_file (engine/volume/nifti_header_guard.cpp, the
//     header guard every NIfTI read passes), with the default caps and with
//     reject_non_finite off;
//   - medsynth::read_nifti_comment_extensions (engine/volume/nifti_extension.cpp,
//     what `medsynth-engine regenerate FILE` and the console read);
//   - medsynth::parse_provenance (engine/diffusion/generation_provenance.cpp)
//     for every extension text it returns.
// Scratch files live in a private folder on /dev/shm.
//
// Expected outcomes: results, std::nullopt from parse_provenance (not a
// provenance), or a medsynth::Error subclass (DataError naming the file).
//
// Findings: any other exception escaping (std::bad_alloc, nlohmann's,
// std::length_error, ...: printed and aborted), a crash, a hang (-timeout),
// memory over -rss_limit_mb (a .nii.gz that inflates without a bound), and
// every AddressSanitizer / UndefinedBehaviorSanitizer report.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "contract/generation_provenance.hpp"
#include "fuzz_support.hpp"
#include "volume/nifti_extension.hpp"
#include "volume/nifti_header_guard.hpp"

namespace {

// A gzip stream (header, deflate, CRC trailer) of the payload, as gzip(1) writes.
std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(size)) + 32);
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void parse_text(const std::string& text, const std::string& source) {
  try {
    const std::optional<medsynth::GenerationProvenance> p = medsynth::parse_provenance(text, source);
    if (p) {
      volatile std::size_t sink = p->job_yaml.size() + static_cast<std::size_t>(p->threads);
      (void)sink;
    }
  } catch (const medsynth::Error&) {
    // Expected: a provenance with a missing, mistyped or out-of-range field.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("nifti_extension_fuzzer", "parse_provenance");
  }
}

void check_file(const std::string& path) {
  for (const bool reject_non_finite : {true, false}) {
    try {
      medsynth::VolumeReadOptions options;
      options.reject_non_finite = reject_non_finite;
      const medsynth::NiftiHeaderInfo info = medsynth::check_nifti_file(path, options);
      volatile std::uint64_t sink = info.data_bytes + info.warnings.size();
      (void)sink;
    } catch (const medsynth::Error&) {
      // Expected: the guard refused the file.
    } catch (...) {
      medsynth::fuzz::unexpected_exception("nifti_extension_fuzzer", "check_nifti_file");
    }
  }
}

void read_extensions(const std::string& path) {
  std::vector<std::string> texts;
  try {
    texts = medsynth::read_nifti_comment_extensions(path);
  } catch (const medsynth::Error&) {
    return;  // Expected: a malformed header or extension list.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("nifti_extension_fuzzer", "read_nifti_comment_extensions");
  }
  for (const std::string& text : texts) parse_text(text, path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  auto& scratch = medsynth::fuzz::ScratchDir::instance();
  static const std::string nii = scratch.path("x.nii");
  static const std::string nii_gz = scratch.path("x.nii.gz");
  const int mode = data[0] & 3;
  const std::uint8_t* payload = data + 1;
  const std::size_t payload_size = size - 1;
  if (mode == 3) {
    parse_text(std::string(reinterpret_cast<const char*>(payload), payload_size), "fuzz-provenance");
    return 0;
  }
  std::string path;
  if (mode == 0) {
    path = nii;
    medsynth::fuzz::write_file(path, payload, payload_size);
  } else if (mode == 1) {
    path = nii_gz;
    const std::vector<std::uint8_t> z = gzip(payload, payload_size);
    medsynth::fuzz::write_file(path, z.data(), z.size());
  } else {
    path = nii_gz;
    medsynth::fuzz::write_file(path, payload, payload_size);
  }
  check_file(path);
  read_extensions(path);
  return 0;
}
