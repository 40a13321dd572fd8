// model_config_hash / job_config_hash: FNV-1a 64 over a canonical text of the
// typed, resolved job (JSON with sorted keys, no whitespace). Hashing the typed
// spec rather than the file makes the hash blind to key order, comments,
// spacing, "1e-4" vs "0.0001" and omitted defaults. A checkpoint stores the model
// hash so that resuming into a different architecture is refused.
#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "config/job_loader.hpp"

namespace medsynth {

namespace {

std::string fnv1a64_hex(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// nlohmann::json (not ordered_json) keeps object keys sorted: the canonical order.
nlohmann::json canonical(const JobSpec& job) { return nlohmann::json::parse(job_to_json(job)); }

}  // namespace

std::string model_config_hash(const JobSpec& job) {
  const auto full = canonical(job);
  const nlohmann::json model_part{{"task", full.at("task")}, {"model", full.at("model")}};
  return fnv1a64_hex(model_part.dump());
}

std::string job_config_hash(const JobSpec& job) { return fnv1a64_hex(canonical(job).dump()); }

}  // namespace medsynth
