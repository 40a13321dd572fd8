// libFuzzer harness: the readers of the small JSON documents strangers give
// the engine beside their volumes (issue 50, "beyond the list").
//
// Feeds: the first byte selects the reader, the rest is written unchanged to
// a file of that reader's name in a private scratch folder on /dev/shm:
//   0  map.json           to label_mapping (engine/data/label_vocabulary.cpp:
//                         `prepare-label --from MAP`, {"<source id>": <MAISI id
//                         or class name>}; keys must be canonical decimals, ids
//                         MAISI CT classes), then every entry is read back;
//   1  statistics.json    to read_organ_statistics (engine/eval/organ_quality_check.cpp:
//                         `generate --quality-check FILE`, NV-Generate's
//                         image_median_statistics_ct.json layout);
//   2  x_emb.nii.gz.json  to read_maisi_embedding_metadata
//                         (engine/diffusion/maisi_embedding_metadata.cpp: the
//                         metadata beside each latent of an NV-Generate
//                         embeddings folder, with its conditioning keys through
//                         engine/data/image_conditioning.cpp).
// Each reads through core/bounded_json.hpp (4 MiB document cap, 64 levels).
//
// Expected outcomes: a value, or a medsynth::Error subclass naming the file.
// Findings: any other exception escaping (nlohmann::json type errors, std::
// out_of_range from std::stoi, ...: the harness prints its type and aborts), a
// crash, a hang, memory over -rss_limit_mb, every ASan/UBSan report, and
// results the readers promise not to return: a map id that is neither 0 nor a
// MAISI CT class, an organ range that is empty or not finite, an embedding's
// spacing outside (0, 1e4] mm or a split other than train/val.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "data/label_vocabulary.hpp"
#include "diffusion/maisi_embedding_metadata.hpp"
#include "eval/organ_quality_check.hpp"
#include "fuzz_support.hpp"

namespace {

[[noreturn]] void broken_promise(const char* what) {
  std::fprintf(stderr, "json_documents_fuzzer: FINDING: %s\n", what);
  std::abort();
}

void read_map(const std::string& path) {
  const medsynth::LabelMapping m = medsynth::label_mapping(path);
  for (const auto& [source, entry] : m.labels)
    if (source <= 0 || (entry.maisi != 0 && !medsynth::maisi_ct_classes().count(entry.maisi)))
      broken_promise("label_mapping returned a source id <= 0 or an id MAISI CT does not have");
}

void read_statistics(const std::string& path) {
  const medsynth::OrganStatistics s = medsynth::read_organ_statistics(path);
  for (const auto& [organ, range] : s.organs)
    if (!std::isfinite(range.low) || !std::isfinite(range.high) || range.low > range.high ||
        !medsynth::maisi_ct_organ_groups().count(organ))
      broken_promise("read_organ_statistics returned an empty, non-finite or unknown organ range");
}

void read_embedding_metadata(const std::string& path) {
  const medsynth::MaisiEmbeddingMetadata m = medsynth::read_maisi_embedding_metadata(path);
  for (double s : m.spacing)
    if (!(s > 0 && s <= 1e4)) broken_promise("read_maisi_embedding_metadata returned a spacing outside (0, 1e4]");
  for (std::int64_t d : m.dim)
    if (d < 0) broken_promise("read_maisi_embedding_metadata returned a negative dim");
  if (m.split != "train" && m.split != "val") broken_promise("read_maisi_embedding_metadata returned another split");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto& scratch = medsynth::fuzz::ScratchDir::instance();
  static const std::string paths[3] = {scratch.path("map.json"), scratch.path("statistics.json"),
                                       scratch.path("x_emb.nii.gz.json")};
  const unsigned mode = data[0] % 3;
  const std::string& path = paths[mode];
  medsynth::fuzz::write_file(path, data + 1, size - 1);
  static const char* const readers[3] = {"label_mapping", "read_organ_statistics", "read_maisi_embedding_metadata"};
  try {
    if (mode == 0) read_map(path);
    if (mode == 1) read_statistics(path);
    if (mode == 2) read_embedding_metadata(path);
  } catch (const medsynth::Error&) {
    // Expected: the reader refused the file with a message naming it.
  } catch (...) {
    medsynth::fuzz::unexpected_exception("json_documents_fuzzer", readers[mode]);
  }
  return 0;
}
