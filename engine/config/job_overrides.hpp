// Hydra-style command-line overrides ("training.lr=3e-4",
// "data.patch_size=[32,32,32]", "+data.path=/x") applied to a parsed job
// document before it is typed, so an override is checked exactly like the same
// line in the file. Called by job_loader.cpp for `medsynth-engine train job.yaml
// key=value ...`. Internal to medsynth_config.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"

namespace medsynth {

// Applies the overrides in order (a later one wins). A malformed override, an
// unknown key (with a did-you-mean) or an unparsable value is appended to
// `errors` as "override <text>: <reason>" and not applied.
void apply_overrides(YAML::Node& document, const std::vector<std::string>& overrides, std::vector<FieldError>& errors);

}  // namespace medsynth
