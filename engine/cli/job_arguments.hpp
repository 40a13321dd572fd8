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

}  // namespace medsynth::cli
