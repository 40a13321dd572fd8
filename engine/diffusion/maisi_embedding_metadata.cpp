#include "diffusion/maisi_embedding_metadata.hpp"

#include <cmath>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/bounded_json.hpp"
#include "core/error.hpp"

namespace medsynth {
namespace {

// Bounded above too: the UNet takes the spacing as a float, and 1e300 failed
// there as "cannot be converted to type float" naming no file. No scanner's
// voxel is 10 m wide.
constexpr double k_max_spacing_mm = 1e4;

}  // namespace

MaisiEmbeddingMetadata read_maisi_embedding_metadata(const std::string& json_path) {
  const nlohmann::json meta =
      read_bounded_json_file(json_path, k_document_json_cap,
                             "cannot open it: NV-Generate's training reads the spacing from this file beside "
                             "each *_emb.nii.gz");
  if (!meta.is_object()) throw DataError(json_path, "is not a JSON object of the latent's metadata");
  MaisiEmbeddingMetadata m;
  try {
    m.spacing = meta.at("spacing").get<std::array<double, 3>>();
    m.split = meta.value("split", std::string("train"));
    m.stored = meta.value("stored", std::string("sample"));
    if (meta.contains("dim")) {
      const auto& dim = meta.at("dim");
      if (!dim.is_array() || dim.size() != 3)
        throw DataError(json_path, "dim must be 3 whole numbers, not " + dim.dump());
      for (std::size_t i = 0; i < 3; ++i) {
        // Compared as JSON holds them: get<int64_t> wraps an unsigned value above INT64_MAX.
        const auto& v = dim[i];
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > (1ull << 31)) ||
            (!v.is_number_unsigned() && (v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > (1ll << 31))))
          throw DataError(json_path, "dim must be 3 whole numbers in [0, 2^31], not " + dim.dump());
        m.dim[i] = v.get<std::int64_t>();
      }
    }
    // NV-Generate trains each file with its own class (a name of its
    // modality_mapping.json) and, for ddpm-ct, its own body regions.
    m.conditioning = read_image_conditioning(meta, json_path);
  } catch (const DataError&) {
    throw;
  } catch (const std::exception& e) {
    throw DataError(json_path, std::string("lacks a field or has a wrong type: ") + e.what());
  }
  for (double s : m.spacing)
    if (!std::isfinite(s) || s <= 0 || s > k_max_spacing_mm)
      throw DataError(json_path, "spacing must be 3 numbers in (0, 1e4] mm, not " + nlohmann::json(s).dump());
  if (m.split != "train" && m.split != "val")
    throw DataError(json_path, "split must be \"train\" or \"val\", not \"" + m.split + "\"");
  if (m.stored != "sample" && m.stored != "mean")
    throw DataError(json_path, "stored must be \"sample\" or \"mean\", not \"" + m.stored + "\"");
  return m;
}

}  // namespace medsynth
