#include "diffusion/generation_provenance.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/bounded_json.hpp"

namespace medsynth {

std::string provenance_json(const GenerationProvenance& p) {
  const nlohmann::json j = {{"medsynth_provenance",
                             {{"engine_version", p.engine_version},
                              {"unet_checkpoint", p.unet_checkpoint},
                              {"unet_checkpoint_fnv1a64", p.unet_checkpoint_hash},
                              {"autoencoder_checkpoint", p.autoencoder_checkpoint},
                              {"autoencoder_checkpoint_fnv1a64", p.autoencoder_checkpoint_hash},
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
  if (!p.label.empty()) {
    auto& m = out["medsynth_provenance"];
    m["label"] = p.label;
    m["label_fnv1a64"] = p.label_hash;
    m["controlnet_checkpoint"] = p.controlnet_checkpoint;
    m["controlnet_checkpoint_fnv1a64"] = p.controlnet_checkpoint_hash;
    m["controlnet_network_config"] = p.controlnet_network_config;
  }
  return out.dump();
}

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
    out.unet_checkpoint = p.at("unet_checkpoint");
    out.unet_checkpoint_hash = p.at("unet_checkpoint_fnv1a64");
    out.autoencoder_checkpoint = p.at("autoencoder_checkpoint");
    out.autoencoder_checkpoint_hash = p.at("autoencoder_checkpoint_fnv1a64");
    out.scale_factor = p.at("scale_factor");
    out.scheduler = p.at("scheduler");
    out.num_inference_steps = p.at("num_inference_steps");
    out.seed = p.at("seed");
    out.rank = p.at("rank");
    out.world_size = p.at("world_size");
    out.threads = p.at("threads");
    out.device = p.at("device");
    out.job_config_hash = p.at("job_config_hash");
    out.job_yaml = p.at("job");
    if (p.contains("label")) {
      out.label = p.at("label");
      out.label_hash = p.at("label_fnv1a64");
      out.controlnet_checkpoint = p.at("controlnet_checkpoint");
      out.controlnet_checkpoint_hash = p.at("controlnet_checkpoint_fnv1a64");
      out.controlnet_network_config = p.at("controlnet_network_config");
    }
  } catch (const nlohmann::json::exception& e) {
    throw DataError(source, std::string("medsynth provenance: ") + e.what());
  }
  return out;
}

std::string file_fnv1a64(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot read");
  std::uint64_t h = 0xcbf29ce484222325ULL;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buffer[i]);
      h *= 0x100000001b3ULL;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace medsynth
