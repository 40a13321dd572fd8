// Latent embeddings in NVIDIA NV-Generate-CTMR's layout, beside medsynth's own
// (latent_files.hpp). NV-Generate's diff_model_create_training_data.py writes
// <image>_emb.nii.gz: the latent transposed to [X, Y, Z, C] (channels on the
// 4th NIfTI axis), float32, with the affine of the preprocessed image; its
// diff_model_train.py reads beside each one <image>_emb.nii.gz.json with
// "spacing" (mm, x100 into the UNet), "modality" (a name of
// configs/modality_mapping.json) and, for UNets with body-region inputs,
// "top_region_index" / "bottom_region_index". Written by the encode stage
// when ldm.embedding_layout is maisi; read through read_latents when
// ldm.embedding_dir holds only such files. xyz (MAISI) latents only:
// LatentRecord::latent is [C, X, Y, Z] here.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "diffusion/latent_files.hpp"

namespace medsynth {

// What the NIfTI and its JSON carry besides the record.
struct MaisiEmbeddingInfo {
  std::array<double, 3> origin{0, 0, 0};                       // the encoded image's, LPS
  std::array<double, 9> direction{1, 0, 0, 0, 1, 0, 0, 0, 1};  // the encoded image's
  std::string modality;                                        // modality_mapping.json's name; "": not written
  std::vector<int> top_region_index;  // one-hot head, chest, abdomen, lower body; empty: not written
  std::vector<int> bottom_region_index;
};

// <dir>/<id>_emb.nii.gz and <dir>/<id>_emb.nii.gz.json.
std::string maisi_embedding_path(const std::string& dir, const std::string& id);
std::string maisi_embedding_json_path(const std::string& dir, const std::string& id);
// Both files are there (an encode that stopped between them writes them again).
bool maisi_embedding_exists(const std::string& dir, const std::string& id);

// Writes the JSON, then the NIfTI, each atomically: NV-Generate's script
// lists the NIfTI files and opens the JSON beside each, so a crash between
// the two leaves a JSON without a NIfTI, which it skips.
void write_maisi_embedding(const std::string& dir, const LatentRecord& record, const MaisiEmbeddingInfo& info);

// True when `dir` (searched through its subfolders, as NV-Generate mirrors
// the images' folders) holds at least one *_emb.nii.gz and no medsynth
// *_emb.safetensors: a folder to read in NV-Generate's layout.
bool holds_only_maisi_embeddings(const std::string& dir);

// Every <id>_emb.nii.gz under `dir` whose JSON's split is `split` ("" = all),
// sorted by id (its path below `dir` without _emb.nii.gz). The split is the
// JSON's "split" when present (medsynth writes it; NV-Generate ignores it),
// else "train": NV-Generate's folders hold training data only. DataError
// naming the file for a NIfTI that is not 4D, a missing or malformed JSON, a
// spacing that is not 3 numbers > 0, a latent `required` refuses (checked on
// each file before the next is read). May return none.
std::vector<LatentRecord> read_maisi_embeddings(const std::string& dir, const std::string& split,
                                                const LatentRequirements& required = {});

}  // namespace medsynth
