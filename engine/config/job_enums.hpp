// The spellings of the job spec's enums as they appear in job files
// ("simulated", "folder", "csv"; "ct", "mri"). Used by the job reader/writer and
// by anyone who prints or logs a DataSpec (data loaders, the CLI, the console).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/job_spec.hpp"

namespace medsynth {

std::string_view to_string(DataSource source);
std::string_view to_string(Modality modality);

// Exact lowercase spellings only; nothing for anything else.
std::optional<DataSource> parse_data_source(std::string_view text);
std::optional<Modality> parse_modality(std::string_view text);

// Every accepted spelling, in declaration order (for messages and suggestions).
const std::vector<std::string>& data_source_names();
const std::vector<std::string>& modality_names();

}  // namespace medsynth
