// What made a generated volume, written into it as a NIfTI comment extension
// (volume/nifti_extension.hpp) so that the file alone says how to make it
// again: `medsynth-engine regenerate FILE` reads it back. The JSON is
// {"medsynth_provenance": {...}} with the fields below; the job is the whole
// resolved job file. Every file that shapes the output is named with the
// SHA-256 of its bytes (`*_sha256` keys); volumes made before issue 37 carry
// FNV-1a 64 (`*_fnv1a64`), which is read and shown but, being collidable by
// anyone, never trusted by regenerate. No LibTorch here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/file_digest.hpp"

namespace medsynth {

// The digest provenance records now.
inline constexpr const char* k_provenance_hash = "sha256";

struct GenerationProvenance {
  std::string engine_version;
  std::string hash_algorithm = k_provenance_hash;     // of every *_hash below: "sha256" (or a legacy "fnv1a64")
  std::string unet_checkpoint, unet_checkpoint_hash;  // absolute path; the hash of its bytes
  std::string autoencoder_checkpoint, autoencoder_checkpoint_hash;
  double scale_factor = 1.0;  // latent scale (RUN/embedding/scale_factor.json)
  std::string scheduler;      // scheduler.kind
  int num_inference_steps = 0;
  std::int64_t seed = 0;
  int rank = 0, world_size = 1;
  int threads = 1;     // intra-op threads of the process that made it
  std::string device;  // "cpu", "cuda:0"
  // The volume's units: "ct" (Hounsfield units) or "mri" (data.modality's
  // spellings); empty in files made before it was recorded. The viewer picks
  // its presets from it instead of guessing from the intensities.
  std::string modality;
  std::string job_config_hash;
  std::string job_yaml;
  // Image-from-mask generation only (empty otherwise).
  std::string label, label_hash;
  std::string controlnet_checkpoint, controlnet_checkpoint_hash;
  std::string controlnet_network_config, controlnet_network_config_hash;
  // Regeneration of a region of a real image (generate --inpaint) only,
  // empty otherwise: the image every voxel outside the region was copied
  // from, the region's mask, and the margin in voxels that the region grew by.
  std::string inpaint_source, inpaint_source_hash;
  std::string inpaint_region, inpaint_region_hash;
  std::vector<int> inpaint_region_classes;  // the region's labels; empty: every nonzero voxel
  int inpaint_margin = 0;
  std::int64_t inpaint_voxels = 0;  // voxels regenerated (the region and its margin)
};

std::string provenance_json(const GenerationProvenance& p);
// nullopt when `text` is not a medsynth provenance; DataError(source, ...) when it is one with a missing or mistyped
// field. Its threads are at most this many (a thread pool of the recorded size is built).
inline constexpr int k_max_provenance_threads = 1024;
// nullopt: not a medsynth provenance. DataError naming `source` for one whose
// fields are missing, of the wrong type or out of range.
std::optional<GenerationProvenance> parse_provenance(const std::string& text, const std::string& source);

// The intra-op threads a replay of `p` runs on: `requested` (--threads) when
// > 0, else the recorded count, but never more than `cores` unless asked for:
// a provenance from a 256-core node, or a forged one, must not build a pool
// of hundreds of threads on a workstation (issue 50). Bit-for-bit equality
// needs the recorded count; regenerate says when it runs on fewer.
int replay_thread_count(const GenerationProvenance& p, int requested, unsigned cores);

// file_sha256: core/file_digest.hpp.

}  // namespace medsynth
