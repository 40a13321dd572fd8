// `medsynth-engine validate JOB [key=value ...]`: lists every problem of a job
// file with its field path (exit 2), or prints the resolved job (exit 0).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/job_arguments.hpp"
#include "cli/verbs.hpp"
#include "config/job_loader.hpp"

namespace medsynth::cli {

Action add_validate_verb(CLI::App& app) {
  struct Args {
    std::string job_file, data;
    std::vector<std::string> overrides;
    bool json = false, print = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("validate", "Check a job file: every error with its field path; exit 0 when valid");
  cmd->add_option("job", args->job_file, "Job file (.yaml or .json)")->required();
  cmd->add_option("overrides", args->overrides, "Overrides key=value applied before validation");
  cmd->add_option("--data", args->data, "Validate with this data folder or CSV manifest");
  cmd->add_flag("--print", args->print, "Print the resolved job (all defaults filled in)");
  cmd->add_flag("--json", args->json, "With --print: as JSON");
  return [args] {
    JobSpec job = load_job(args->job_file, args->data, args->overrides);
    if (args->print) std::cout << (args->json ? job_to_json(job) : job_to_yaml(job)) << "\n";
    std::cerr << args->job_file << ": valid\n";
    return 0;
  };
}

}  // namespace medsynth::cli
