// `medsynth-engine export-maisi RUN OUT`: the way back to NVIDIA's format. A
// run on MAISI networks (an import-maisi run, or a run fine-tuned from one)
// is written as the .pt files NV-Generate-CTMR's scripts load, under the
// names its download_model_data.py gives them:
//   OUT/models/autoencoder_v1.pt             the autoencoder's state dict
//   OUT/models/diff_unet_3d_<model>.pt       {"unet_state_dict", "scale_factor",
//                                             "num_train_timesteps"}
//   OUT/models/controlnet_3d_<model>.pt      {"controlnet_state_dict"}, when the run has one
// in torch.save's zip format (weights/torch_file_writer.hpp: torch.load reads
// it, weights_only too), tensor names as MONAI's modules name them. The weights are the run's last
// checkpoints (their moving average when they hold one, as generate uses),
// each written atomically. import-maisi reads them back bit for bit.
#pragma once

#include <string>
#include <vector>

#include "config/maisi_models.hpp"

namespace medsynth {

struct MaisiExportOptions {
  std::string run;                            // the run directory (job.yaml with MAISI networks)
  std::string out;                            // the NV-Generate folder to write models/ into
  std::string model = default_maisi_model();  // names the files: one of maisi_model_names()
  bool overwrite = false;                     // replace existing .pt files of those names

  // Throws UsageError naming the bad option.
  void validate() const;
};

struct MaisiExportResult {
  std::vector<std::string> written;  // the .pt files, in the order written
  double scale_factor = 0;
};

MaisiExportResult export_maisi(const MaisiExportOptions& options);

}  // namespace medsynth
