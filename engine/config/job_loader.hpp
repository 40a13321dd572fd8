// Reading, validating and writing job documents. Called by the CLI verbs
// (train, validate, eval) and, later, by the console's job editor.
// Error rule: throws medsynth::ConfigError listing every problem with its field
// path (unknown keys with a did-you-mean, wrong types, out-of-range values).
#pragma once

#include <string>
#include <vector>

#include "config/job_spec.hpp"
#include "core/error.hpp"

namespace medsynth {

// Parses YAML (JSON is valid YAML; .json files are parsed as JSON for exact
// error positions). Unknown keys and type errors are collected; then
// validate_job() runs. Throws ConfigError (all problems) or UsageError (unreadable file).
JobSpec load_job_file(const std::string& path);
JobSpec load_job_text(const std::string& text, const std::string& source_name = "job");

// Applies Hydra-style overrides "training.lr=3e-4", "data.patch_size=[32,32,32]"
// to a document before it is typed. Used by load_job_file_with_overrides.
JobSpec load_job_file_with_overrides(const std::string& path, const std::vector<std::string>& overrides);
// The same for text already in memory (the console's editor, tests). JSON is
// chosen when source_name ends in .json, YAML otherwise.
JobSpec load_job_text_with_overrides(const std::string& text, const std::vector<std::string>& overrides,
                                     const std::string& source_name = "job");

// Every semantic problem of a typed job (ranges, combinations, paths).
std::vector<FieldError> validate_job(const JobSpec& job);

// One "path: reason" line per error, newline-separated (ConfigError's message
// adds the source name and the count in front of the same lines).
std::string format_errors(const std::vector<FieldError>& errors);

// The resolved job, every default filled in, as YAML / JSON text. Reading either
// back gives an identical JobSpec. Strings that are not valid UTF-8 are written
// with U+FFFD; non-finite numbers are written as .nan/.inf (YAML) or null (JSON).
// Enum spellings: config/job_enums.hpp.
std::string job_to_yaml(const JobSpec& job);
std::string job_to_json(const JobSpec& job);

// A stable hash of the resolved job's model-defining fields (task + model), used
// to refuse a checkpoint of another model. Hex string.
std::string model_config_hash(const JobSpec& job);
// Hash of the whole resolved job (for run_started).
std::string job_config_hash(const JobSpec& job);

// The dotted path of every job field, in file order ("data.patch_size", ...):
// what an override may name. The shell completion is generated from it.
std::vector<std::string> job_field_paths();

}  // namespace medsynth
