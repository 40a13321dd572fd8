// NV-Generate-CTMR's released MAISI models, by the names its scripts and
// configs use (environment_<model>.json, diff_unet_3d_<model>.pt), written
// once: `import-maisi --model`, the importer's checks and the console's
// MAISI dialog read them from here (issue 33: they were written in 4 places).
// Torch-free, header-only.
#pragma once

#include <string>
#include <vector>

namespace medsynth {

// In the order a user is offered them; the first is the default.
inline const std::vector<std::string>& maisi_model_names() {
  static const std::vector<std::string> names{"rflow-ct", "ddpm-ct", "rflow-mr"};
  return names;
}

inline const std::string& default_maisi_model() { return maisi_model_names().front(); }

}  // namespace medsynth
