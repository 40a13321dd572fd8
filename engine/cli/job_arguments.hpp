// Turns the shared job arguments of train/eval/validate (a job file, --data,
// key=value overrides) into a validated JobSpec.
#pragma once

#include <string>
#include <vector>

#include "config/job_spec.hpp"

namespace medsynth::cli {

// `--data X`: a folder of volumes or a CSV manifest replaces the job's source.
std::vector<std::string> data_overrides(const std::string& data);

JobSpec load_job(const std::string& job_file, const std::string& data, const std::vector<std::string>& overrides);

// The job a job file, or a run directory, names: a run directory (an ldm
// run, import-maisi's) is its job.yaml starting from its networks
// (overrides_starting_from_run), as `train RUN` trains it and `validate RUN`
// checks and plans it.
JobSpec load_job_or_run(const std::string& job_or_run, const std::string& data,
                        const std::vector<std::string>& overrides);

}  // namespace medsynth::cli
