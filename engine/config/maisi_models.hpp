// NV-Generate-CTMR's released MAISI models, by the names its scripts and
// configs use (environment_<model>.json, diff_unet_3d_<model>.pt), written
// once: `import-maisi --model`, the importer's checks and the console's
// MAISI dialog read them from here (issue 33: they were written in 4 places).
// Torch-free, header-only.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace medsynth {

// In the order a user is offered them; the first is the default.
inline const std::vector<std::string>& maisi_model_names() {
  static const std::vector<std::string> names{"rflow-ct", "ddpm-ct", "rflow-mr", "rflow-mr-brain"};
  return names;
}

inline const std::string& default_maisi_model() { return maisi_model_names().front(); }

// "" when `model` is one of maisi_model_names(), else the reason, naming them
// (for the `--model` of import-maisi and export-maisi).
inline std::string maisi_model_problem(const std::string& model) {
  std::string names;
  for (const auto& m : maisi_model_names()) {
    if (m == model) return {};
    names += (names.empty() ? "" : ", ") + m;
  }
  return "must be one of " + names + " (got '" + model + "')";
}

// The MAISI UNet's class label (`class_labels`, generate.modality) as
// NV-Generate-CTMR numbers it (configs/modality_mapping.json): 1-7 are CT,
// 8 and above MR. The output's intensity range follows it (CT: HU in
// [-1000, 1000]; MR: [0, 1000] with no upper clip).
inline constexpr int k_maisi_modality_ct = 1;
inline constexpr int k_maisi_modality_mri_t1 = 9;
inline constexpr bool is_maisi_mr_modality(int code) { return code >= 8; }

// The names NV-Generate's configs/modality_mapping.json gives the class
// labels: its dataset JSONs (<image>_emb.nii.gz.json) hold the name, and its
// diff_model_train.py looks the code up by it. "" for a code it has no name
// for (4-7, 18, 19, 21-28 and above 33).
inline std::string maisi_modality_name(int code) {
  static const std::pair<int, const char*> names[] = {
      {0, "unknown"},
      {1, "ct"},
      {2, "ct_wo_contrast"},
      {3, "ct_contrast"},
      {8, "mri"},
      {9, "mri_t1"},
      {10, "mri_t2"},
      {11, "mri_flair"},
      {12, "mri_pd"},
      {13, "mri_dwi"},
      {14, "mri_adc"},
      {15, "mri_ssfp"},
      {16, "mri_mra"},
      {17, "mri_t1c"},
      {20, "mri_swi"},
      {29, "mri_t1_skull_stripped"},
      {30, "mri_t2_skull_stripped"},
      {31, "mri_flair_skull_stripped"},
      {32, "mri_swi_skull_stripped"},
      {33, "mri_mra_skull_stripped"},
  };
  for (const auto& [c, name] : names)
    if (c == code) return name;
  return {};
}

// The code of a modality_mapping.json name (an embedding's "modality"), -1
// for a name it does not hold.
inline int maisi_modality_code(const std::string& name) {
  for (int code = 0; code <= 33; ++code)
    if (!name.empty() && maisi_modality_name(code) == name) return code;
  return -1;
}

inline bool is_maisi_mr_model(const std::string& model) { return model.rfind("rflow-mr", 0) == 0; }

// The class label a model generates with when nothing names one: NV-Generate's
// config_maisi_diff_model_<model>.json (rflow-mr: 9, mri_t1).
inline int default_maisi_modality(const std::string& model) {
  return is_maisi_mr_model(model) ? k_maisi_modality_mri_t1 : k_maisi_modality_ct;
}

// Classifier-free guidance when nothing names a scale: NV-Generate's
// config_maisi_diff_model_<model>.json (rflow-mr 15, rflow-mr-brain 2; CT: off).
inline double default_maisi_guidance_scale(const std::string& model) {
  return model == "rflow-mr-brain" ? 2.0 : model == "rflow-mr" ? 15.0 : 0.0;
}

}  // namespace medsynth
