// Turns a parsed job document (a YAML node tree; JSON files are converted to one
// first) into a JobSpec: absent fields keep their defaults, and every unknown
// key, duplicate key and wrong type is appended to `errors` with its dotted
// path. Called by job_loader.cpp before validate_job(). Internal to medsynth_config.
#pragma once

#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/job_spec.hpp"
#include "core/error.hpp"

namespace medsynth {

JobSpec read_job_document(const YAML::Node& document, std::vector<FieldError>& errors);

}  // namespace medsynth
