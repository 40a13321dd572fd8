// The metadata NV-Generate-CTMR writes beside each latent of an embeddings
// folder (<id>_emb.nii.gz.json): the encoded image's spacing and size, and the
// conditioning NV-Generate trains that file with. A stranger's file, read
// under the byte cap of one document and checked field by field before the
// latent beside it is opened. No LibTorch, no ITK (fuzzed on its own:
// tests/fuzz/json_documents_fuzzer.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "data/image_conditioning.hpp"

namespace medsynth {

struct MaisiEmbeddingMetadata {
  std::array<double, 3> spacing{1, 1, 1};    // mm, each in (0, 1e4]
  std::array<std::int64_t, 3> dim{0, 0, 0};  // voxels of the encoded image; 0 0 0 when the file gives none
  std::string split = "train";               // "train" | "val"
  // NV-Generate encodes with encode_stage_2_inputs, which draws a sample of q(z|x).
  std::string stored = "sample";
  ImageConditioning conditioning;
};

// DataError naming `json_path` and the field: not JSON, over the cap, a
// missing spacing, a wrong type, a spacing that is not finite, not positive
// or over 10 m, a dim not in [0, 2^31), a split other than train/val, a wrong
// modality or region (read_image_conditioning).
MaisiEmbeddingMetadata read_maisi_embedding_metadata(const std::string& json_path);

}  // namespace medsynth
