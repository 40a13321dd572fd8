// `medsynth-engine import-maisi FOLDER --out RUN_DIR [--model rflow-ct]`:
// NVIDIA's released MAISI weights (an NV-Generate-CTMR folder) into a run
// directory that `generate` samples from (diffusion/maisi_import.hpp).
// Prints the run directory and what it read.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"
#include "config/maisi_models.hpp"
#include "diffusion/maisi_import.hpp"

namespace medsynth::cli {

Action add_import_maisi_verb(CLI::App& app) {
  auto o = std::make_shared<MaisiImportOptions>();
  auto* cmd = app.add_subcommand("import-maisi", "Turn NVIDIA's MAISI weights (an NV-Generate-CTMR folder) into a run directory for generate");
  cmd->add_option("folder", o->folder, "NV-Generate folder with configs/ and the downloaded models/")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--out", o->out, "Run directory to create (must not exist)")->required();
  // The list in the help is the one the import checks against (config/maisi_models.hpp).
  std::string models;
  for (const auto& m : maisi_model_names()) models += (models.empty() ? "" : ", ") + m;
  cmd->add_option("--model", o->model, "One of " + models + " (default " + default_maisi_model() + ")");
  cmd->add_option("--network-config", o->network_config, "Default: FOLDER/configs/config_network_{rflow,ddpm}.json");
  cmd->add_option("--infer-config", o->infer_config, "Default: FOLDER/configs/config_infer.json (output size, spacing, modality)");
  cmd->add_option("--autoencoder", o->autoencoder, "Default: environment_<model>.json's trained_autoencoder_path");
  cmd->add_option("--diffusion", o->diffusion, "Default: environment_<model>.json's trained_diffusion_path");
  cmd->add_option("--controlnet", o->controlnet, "Default: environment_<model>.json's trained_controlnet_path, when present");
  return [o] {
    o->on_step = [](const std::string& step, int done, int total) {
      std::cerr << "import-maisi: " << done << "/" << total << " " << step << std::endl;
    };
    const MaisiImportResult r = import_maisi(*o);
    std::cout << r.run_dir << "\n";
    for (const auto& note : r.notes) std::cerr << "import-maisi: note: " << note << "\n";
    std::cerr << "import-maisi: read " << r.sources.size() << " checkpoints (scale_factor " << r.scale_factor
              << (r.controlnet ? ", with ControlNet" : "") << "); sample with: medsynth-engine generate " << r.run_dir << "\n";
    return 0;
  };
}

}  // namespace medsynth::cli
