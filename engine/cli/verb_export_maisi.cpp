// `medsynth-engine export-maisi RUN OUT [--model rflow-ct]`: a run on MAISI
// networks (imported or fine-tuned) as the .pt files NV-Generate-CTMR's
// scripts load (diffusion/maisi_export.hpp). Prints each file written.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/verbs.hpp"
#include "diffusion/maisi_export.hpp"

namespace medsynth::cli {

Action add_export_maisi_verb(CLI::App& app) {
  auto o = std::make_shared<MaisiExportOptions>();
  auto* cmd =
      app.add_subcommand("export-maisi", "Write a run's MAISI networks as NV-Generate's .pt files (OUT/models/)");
  cmd->add_option("run", o->run, "Run directory on MAISI networks (import-maisi's, or one fine-tuned from it)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("out", o->out, "NV-Generate folder to write models/ into (made when missing)")->required();
  cmd->add_option("--model", o->model, "Names the files: rflow-ct (default), ddpm-ct, rflow-mr or rflow-mr-brain");
  cmd->add_flag("--overwrite", o->overwrite, "Replace .pt files of those names");
  return [o] {
    const MaisiExportResult r = export_maisi(*o);
    for (const auto& file : r.written) std::cout << file << "\n";
    std::cerr << "export-maisi: wrote " << r.written.size() << " files (scale_factor " << r.scale_factor
              << "); NV-Generate loads them with its environment_" << o->model
              << ".json paths, import-maisi reads them back\n";
    return 0;
  };
}

}  // namespace medsynth::cli
