// The card of a labelled synthetic dataset (issue 39 item 4): for a folder of
// image/label pairs that `generate --label` wrote, each pair's provenance
// (seed, scheduler, the SHA-256 of the UNet, autoencoder, ControlNet and of
// the label map it was generated from: the input file, which the copy beside
// the image re-encodes), the organ quality check's verdict (..._quality.json), and the
// memorization audit of `evaluate --train` when its evaluation.json is given
// or found in FOLDER/evaluation/. Written as dataset-card.json and
// dataset-card.md beside the pairs, so the folder travels with its card.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace medsynth {

struct DatasetCardPair {
  std::string image, label;  // file names in the folder
  bool has_provenance = false;
  std::int64_t seed = 0;
  std::string scheduler, engine_version, modality;
  int steps = 0;
  std::string unet_hash, autoencoder_hash, controlnet_hash, label_hash;  // as the image's provenance records them
  std::string label_file_hash;                                           // of the label file itself
  std::optional<bool> quality_passed;                                    // none: not checked
  int quality_tries = 0;
  std::string quality_failures;     // "liver median ... outside [...]" of the kept image
  std::optional<bool> memorized;    // none: not audited
  double memorization_ratio = 0.0;  // the smaller of the MS-SSIM and latent ratios
};

struct DatasetCard {
  std::string folder;
  std::string evaluation;  // the evaluation.json read, or ""
  std::vector<DatasetCardPair> pairs;
};

// Reads the folder's pairs. DataError naming the file for a broken
// provenance, quality report or evaluation; UsageError for a folder with no
// pair.
DatasetCard read_dataset_card(const std::string& folder, const std::string& evaluation_json = {});

// Writes FOLDER/dataset-card.json and FOLDER/dataset-card.md (atomically);
// returns the Markdown.
std::string write_dataset_card(const DatasetCard& card);

}  // namespace medsynth
