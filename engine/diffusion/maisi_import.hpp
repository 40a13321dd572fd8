// `medsynth-engine import-maisi`: NVIDIA's released MAISI weights (an
// NV-Generate-CTMR folder: configs/config_network_*.json,
// configs/environment_<model>.json, models/*.pt) into a medsynth run
// directory that `generate` samples from, without Python:
//   RUN/job.yaml                                task ldm, the MAISI networks, tensor_axes xyz
//   RUN/autoencoder/, RUN/diffusion/ and (when the folder has one)
//   RUN/controlnet/: each a stage with its last checkpoint (run/run_directory.hpp)
//   RUN/embedding/scale_factor.json            the diffusion checkpoint's scale_factor
// Every network's state dict must match its module name for name and shape
// for shape before anything is written; a mismatch is a DataError naming the
// file and the first missing, unexpected and mis-shaped names. The run
// directory appears whole or not at all (written aside, then renamed).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/maisi_models.hpp"

namespace medsynth {

struct MaisiImportOptions {
  std::string folder;          // the NV-Generate checkout with the downloaded models/
  std::string model = default_maisi_model();  // one of maisi_model_names()
  std::string network_config;  // default: FOLDER/configs/config_network_{rflow,ddpm}.json
  std::string infer_config;    // default: FOLDER/configs/config_infer.json when present (size, spacing, modality)
  std::string autoencoder;     // default: environment_<model>.json's trained_autoencoder_path, else models/autoencoder_v1.pt
  std::string diffusion;       // default: trained_diffusion_path, else models/diff_unet_3d_<model>.pt
  std::string controlnet;      // default: trained_controlnet_path, else models/controlnet_3d_<model>.pt when present
  std::string out;             // the run directory to create; must not exist
  // Before each step ("reading the autoencoder's weights (FILE)", done of
  // total steps): real MAISI weights are gigabytes, read, checked and written
  // again; import-maisi shows that it moves (issue 38).
  std::function<void(const std::string& step, int done, int total)> on_step;

  // Throws UsageError naming the bad option.
  void validate() const;
};

struct MaisiImportResult {
  std::string run_dir;
  double scale_factor = 0;
  bool controlnet = false;
  std::vector<std::string> sources;  // the .pt files read
  std::vector<std::string> notes;    // choices the user should know of (printed by the CLI)
};

MaisiImportResult import_maisi(const MaisiImportOptions& options);

}  // namespace medsynth
