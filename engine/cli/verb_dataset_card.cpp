// `medsynth-engine dataset-card FOLDER [--evaluation FILE]`: the card of a
// folder of generated image/label pairs (diffusion/dataset_card.hpp), written
// beside them as dataset-card.json and dataset-card.md, and printed.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "cli/verbs.hpp"
#include "diffusion/dataset_card.hpp"

namespace medsynth::cli {

Action add_dataset_card_verb(CLI::App& app) {
  struct Args {
    std::string folder, evaluation;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "dataset-card", "Write the card of a folder of generated image/label pairs: provenance, QA, memorization audit");
  cmd->add_option("folder", a->folder, "The folder generate --label wrote (X_image.nii.gz beside X_label.nii.gz)")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--evaluation", a->evaluation,
                  "evaluation.json of `evaluate FOLDER --train ...` (default: FOLDER/evaluation/evaluation.json)")
      ->check(CLI::ExistingFile);
  return [a] {
    std::cout << write_dataset_card(read_dataset_card(a->folder, a->evaluation));
    return 0;
  };
}

}  // namespace medsynth::cli
