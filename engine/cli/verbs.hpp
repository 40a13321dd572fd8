// The verbs of medsynth-engine. Each registers its subcommand on the CLI11 app
// and returns the action to run when it is chosen. Actions throw
// medsynth::Error subclasses; main.cpp maps them to exit codes.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace medsynth::cli {

using Action = std::function<int()>;

Action add_train_verb(CLI::App& app);
Action add_eval_verb(CLI::App& app);
Action add_evaluate_verb(CLI::App& app);
Action add_info_verb(CLI::App& app);
Action add_validate_verb(CLI::App& app);
Action add_launch_verb(CLI::App& app);
Action add_encode_verb(CLI::App& app);
Action add_generate_verb(CLI::App& app);
Action add_regenerate_verb(CLI::App& app);
Action add_export_dicom_verb(CLI::App& app);
Action add_export_seg_verb(CLI::App& app);
Action add_sweep_verb(CLI::App& app);
Action add_dataset_card_verb(CLI::App& app);
Action add_prepare_label_verb(CLI::App& app);
Action add_import_maisi_verb(CLI::App& app);
Action add_export_maisi_verb(CLI::App& app);
// Registered last: it prints the completion of every verb registered before it.
Action add_completion_verb(CLI::App& app);

}  // namespace medsynth::cli
