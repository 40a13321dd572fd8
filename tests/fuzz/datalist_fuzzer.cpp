// libFuzzer harness: MONAI / NV-Generate datalist reader.
//
// Feeds: the input bytes, unchanged, as the file datalist.json (in a private
// scratch folder on /dev/shm, beside five empty files with volume names that
// entries can resolve to: a MAISI image, an X_image/X_label pair and two
// BraTS 2023 contrasts) to medsynth::read_datalist
// (engine/data/case_listing.cpp) with key "training", which parses it
// through core/bounded_json.hpp, resolves each entry's image, contrast and
// label paths, keys contrasts by their file-name suffix, refuses a file
// listed twice, and reads each entry's conditioning (modality,
// top_region_index, bottom_region_index: engine/data/image_conditioning.cpp).
// This is the file `--data list.json` gives every task.
//
// Expected outcomes: the cases, or a medsynth::Error subclass (DataError
// naming the JSON and the entry: not JSON, no list, a path that does not
// exist or is no volume name, a NUL byte, a wrong class or region, ...).
//
// Findings: any other exception escaping the reader (nlohmann::json
// exceptions, std::filesystem_error, std::out_of_range, ...: the harness
// prints its type and aborts), a crash, a hang (-timeout), memory over
// -rss_limit_mb, and every AddressSanitizer / UndefinedBehaviorSanitizer report.
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "data/case_listing.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto& scratch = medsynth::fuzz::ScratchDir::instance();
  static const std::string path = [&] {
    for (const char* name : {"ct.nii.gz", "case_image.nii.gz", "case_label.nii.gz", "BraTS-GLI-00000-000-t1n.nii.gz",
                             "BraTS-GLI-00000-000-seg.nii.gz"})
      medsynth::fuzz::write_file(scratch.path(name), nullptr, 0);
    return scratch.path("datalist.json");
  }();
  medsynth::fuzz::write_file(path, data, size);
  try {
    const auto cases = medsynth::read_datalist(path, "training", "");
    // Touch what was read, so that nothing is optimised away.
    std::size_t sink = 0;
    for (const auto& c : cases)
      sink += c.id.size() + c.contrasts.size() + c.label.size() + c.conditioning.top_region_index.size() +
              static_cast<std::size_t>(c.conditioning.modality + 1);
    volatile std::size_t kept = sink;
    (void)kept;
  } catch (const medsynth::Error&) {
    // Expected: the reader refused the file with a message naming it.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("datalist_fuzzer", "read_datalist");
  }
  return 0;
}
