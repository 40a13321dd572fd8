// The conditioning NV-Generate-CTMR records for each image of a mixed set, so
// that one job trains abdomen and chest CT, or T1 and T2 MR, each with its
// own class: the MAISI UNet's class label ("modality", a name of its
// configs/modality_mapping.json) and the body regions of the image's top and
// bottom slices ("top_region_index" / "bottom_region_index", ddpm-ct). Its
// datalists and its embedding JSONs (<image>_emb.nii.gz.json) carry the keys
// per entry, and so do ours: datalist entries and CSV manifest columns
// (volume_listing), medsynth's latent JSONs and NV-Generate's. A key that is
// absent leaves the job's generate.* value in force for that image.
// No LibTorch, no ITK.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace medsynth {

struct ImageConditioning {
  int modality = -1;                        // the class code; -1: generate.modality
  std::vector<double> top_region_index;     // 4 values, one-hot head, chest, abdomen, lower body; empty: generate's
  std::vector<double> bottom_region_index;  // the same for the bottom slice
  bool empty() const { return modality < 0 && top_region_index.empty() && bottom_region_index.empty(); }
  bool operator==(const ImageConditioning&) const = default;
};

// The JSON keys, as NV-Generate spells them.
inline constexpr const char* k_modality_key = "modality";
inline constexpr const char* k_top_region_key = "top_region_index";
inline constexpr const char* k_bottom_region_key = "bottom_region_index";

// The keys of `object` (a datalist entry, a latent's JSON). "modality" is a
// modality_mapping.json name ("mri_t2") or its code (10); null is absent. A
// region is 4 numbers, each 0 or 1. DataError(where, ...) naming the key and
// what is wrong otherwise.
ImageConditioning read_image_conditioning(const nlohmann::json& object, const std::string& where);

// The same from a CSV row: columns "modality" ("mri_t2" or 10) and
// "top_region_index" / "bottom_region_index" ("0,1,0,0" or "[0, 1, 0, 0]");
// an empty cell or a missing column is absent.
ImageConditioning read_image_conditioning(const std::map<std::string, std::string>& columns, const std::string& where);

// Sets the keys that `c` holds on `object` (the modality by its name).
void write_image_conditioning(const ImageConditioning& c, nlohmann::json& object);

}  // namespace medsynth
