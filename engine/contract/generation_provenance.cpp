#include "contract/generation_provenance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/bounded_json.hpp"

namespace medsynth {

namespace {

// "unet_checkpoint_sha256": a hash field's key under the provenance's algorithm.
std::string hash_key(const std::string& field, const std::string& algorithm) { return field + "_" + algorithm; }

}  // namespace

std::string provenance_json(const GenerationProvenance& p) {
  const std::string& a = p.hash_algorithm;
  const nlohmann::json j = {{"medsynth_provenance",
                             {{"engine_version", p.engine_version},
                              {"unet_checkpoint", p.unet_checkpoint},
                              {hash_key("unet_checkpoint", a), p.unet_checkpoint_hash},
                              {"autoencoder_checkpoint", p.autoencoder_checkpoint},
                              {hash_key("autoencoder_checkpoint", a), p.autoencoder_checkpoint_hash},
                              {"scale_factor", p.scale_factor},
                              {"scheduler", p.scheduler},
                              {"num_inference_steps", p.num_inference_steps},
                              {"seed", p.seed},
                              {"rank", p.rank},
                              {"world_size", p.world_size},
                              {"threads", p.threads},
                              {"device", p.device},
                              {"job_config_hash", p.job_config_hash},
                              {"job", p.job_yaml}}}};
  nlohmann::json out = j;
  if (!p.modality.empty()) out["medsynth_provenance"]["modality"] = p.modality;
  if (!p.label.empty()) {
    auto& m = out["medsynth_provenance"];
    m["label"] = p.label;
    m[hash_key("label", a)] = p.label_hash;
    m["controlnet_checkpoint"] = p.controlnet_checkpoint;
    m[hash_key("controlnet_checkpoint", a)] = p.controlnet_checkpoint_hash;
    m["controlnet_network_config"] = p.controlnet_network_config;
    if (!p.controlnet_network_config_hash.empty())
      m[hash_key("controlnet_network_config", a)] = p.controlnet_network_config_hash;
  }
  if (!p.inpaint_source.empty()) {
    auto& m = out["medsynth_provenance"];
    m["inpaint_source"] = p.inpaint_source;
    m[hash_key("inpaint_source", a)] = p.inpaint_source_hash;
    m["inpaint_region"] = p.inpaint_region;
    m[hash_key("inpaint_region", a)] = p.inpaint_region_hash;
    m["inpaint_region_classes"] = p.inpaint_region_classes;
    m["inpaint_margin"] = p.inpaint_margin;
    m["inpaint_voxels"] = p.inpaint_voxels;
  }
  return out.dump();
}

namespace {

// A provenance is a stranger's text once the file travels: every number
// is checked before it drives anything (issue 37: threads -1 or 1e300
// gave a backtrace, 512 spawned 512 threads).
std::int64_t bounded_integer(const nlohmann::json& p, const char* key, std::int64_t lo, std::int64_t hi,
                             const std::string& source) {
  const auto& v = p.at(key);
  // An unsigned value past int64's range would wrap in get<int64_t> (found by tests/fuzz).
  const bool representable =
      v.is_number_integer() &&
      (!v.is_number_unsigned() ||
       v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!representable || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    throw DataError(source, std::string("medsynth provenance: ") + key + " is " + v.dump() +
                                "; expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v.get<std::int64_t>();
}

// generate --inpaint's fields: the source image, its region and margin.
void read_inpaint_fields(const nlohmann::json& p, const std::string& a, const std::string& source,
                         GenerationProvenance& out) {
  out.inpaint_source = p.at("inpaint_source");
  out.inpaint_source_hash = p.at(hash_key("inpaint_source", a));
  out.inpaint_region = p.at("inpaint_region");
  out.inpaint_region_hash = p.at(hash_key("inpaint_region", a));
  const auto& classes = p.at("inpaint_region_classes");
  if (!classes.is_array() || classes.size() > 65536)
    throw DataError(source, "medsynth provenance: inpaint_region_classes is not a list of at most 65536 labels");
  for (const auto& c : classes) {
    if (!c.is_number_integer() || c.get<std::int64_t>() < 0 || c.get<std::int64_t>() > 65535)
      throw DataError(source, "medsynth provenance: inpaint_region_classes holds " + c.dump() +
                                  "; labels are whole numbers in [0, 65535]");
    out.inpaint_region_classes.push_back(static_cast<int>(c.get<std::int64_t>()));
  }
  out.inpaint_margin = static_cast<int>(bounded_integer(p, "inpaint_margin", 0, 1024, source));
  out.inpaint_voxels = bounded_integer(p, "inpaint_voxels", 0, std::numeric_limits<std::int64_t>::max(), source);
}

}  // namespace

std::optional<GenerationProvenance> parse_provenance(const std::string& text, const std::string& source) {
  nlohmann::json j;
  try {
    j = parse_bounded_json(text, source);
  } catch (const DataError&) {
    return std::nullopt;  // not provenance we wrote (too deep, or not JSON)
  }
  if (!j.is_object() || !j.contains("medsynth_provenance")) return std::nullopt;
  const auto& p = j.at("medsynth_provenance");
  GenerationProvenance out;
  try {
    out.engine_version = p.at("engine_version");
    // SHA-256 since issue 37; FNV-1a 64 before (read, shown, not trusted).
    out.hash_algorithm = p.contains(hash_key("unet_checkpoint", "sha256")) ? "sha256" : "fnv1a64";
    const std::string& a = out.hash_algorithm;
    out.unet_checkpoint = p.at("unet_checkpoint");
    out.unet_checkpoint_hash = p.at(hash_key("unet_checkpoint", a));
    out.autoencoder_checkpoint = p.at("autoencoder_checkpoint");
    out.autoencoder_checkpoint_hash = p.at(hash_key("autoencoder_checkpoint", a));
    const auto integer = [&](const char* key, std::int64_t lo, std::int64_t hi) {
      return bounded_integer(p, key, lo, hi, source);
    };
    const auto& scale = p.at("scale_factor");
    if (!scale.is_number() || !(scale.get<double>() > 0) || !std::isfinite(scale.get<double>()))
      throw DataError(source,
                      "medsynth provenance: scale_factor is " + scale.dump() + "; expected a finite number > 0");
    out.scale_factor = scale.get<double>();
    out.scheduler = p.at("scheduler");
    out.num_inference_steps = static_cast<int>(integer("num_inference_steps", 1, 100000));
    out.seed = integer("seed", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
    out.rank = static_cast<int>(integer("rank", 0, 65535));
    out.world_size = static_cast<int>(integer("world_size", 1, 65536));
    out.threads = static_cast<int>(integer("threads", 1, k_max_provenance_threads));
    out.device = p.at("device");
    out.job_config_hash = p.at("job_config_hash");
    out.job_yaml = p.at("job");
    if (p.contains("modality")) {
      const auto& m = p.at("modality");
      if (!m.is_string() || (m != "ct" && m != "mri"))
        throw DataError(source, "medsynth provenance: modality is " + m.dump() + "; expected \"ct\" or \"mri\"");
      out.modality = m.get<std::string>();
    }
    if (p.contains("label")) {
      out.label = p.at("label");
      out.label_hash = p.at(hash_key("label", a));
      out.controlnet_checkpoint = p.at("controlnet_checkpoint");
      out.controlnet_checkpoint_hash = p.at(hash_key("controlnet_checkpoint", a));
      out.controlnet_network_config = p.at("controlnet_network_config");
      if (a == "sha256") out.controlnet_network_config_hash = p.at(hash_key("controlnet_network_config", a));
    }
    if (p.contains("inpaint_source")) read_inpaint_fields(p, a, source, out);
  } catch (const nlohmann::json::exception& e) {
    throw DataError(source, std::string("medsynth provenance: ") + e.what());
  }
  return out;
}

int replay_thread_count(const GenerationProvenance& p, int requested, unsigned cores) {
  if (requested > 0) return requested;
  return std::min(p.threads, static_cast<int>(std::max(1u, cores)));
}

}  // namespace medsynth
