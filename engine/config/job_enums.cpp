#include "config/job_enums.hpp"

#include <cctype>

namespace medsynth {

std::string_view to_string(DataSource source) {
  switch (source) {
    case DataSource::simulated: return "simulated";
    case DataSource::folder: return "folder";
    case DataSource::csv: return "csv";
    case DataSource::datalist:
      return "datalist";
  }
  return "unknown";
}

std::string_view to_string(Modality modality) {
  switch (modality) {
    case Modality::ct: return "ct";
    case Modality::mri: return "mri";
  }
  return "unknown";
}

std::optional<DataSource> parse_data_source(std::string_view text) {
  for (auto s : {DataSource::simulated, DataSource::folder, DataSource::csv, DataSource::datalist})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

std::optional<Modality> parse_modality(std::string_view text) {
  for (auto m : {Modality::ct, Modality::mri})
    if (text == to_string(m)) return m;
  return std::nullopt;
}

const std::vector<std::string>& data_source_names() {
  static const std::vector<std::string> names{"simulated", "folder", "csv", "datalist"};
  return names;
}

DataSource data_source_for_path(std::string_view path) {
  const auto ends_with = [&](std::string_view ext) {
    if (path.size() < ext.size()) return false;
    for (std::size_t i = 0; i < ext.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
    return true;
  };
  if (ends_with(".csv")) return DataSource::csv;
  if (ends_with(".json")) return DataSource::datalist;
  return DataSource::folder;
}

const std::vector<std::string>& modality_names() {
  static const std::vector<std::string> names{"ct", "mri"};
  return names;
}

const std::vector<std::string>& EnumSpellings<SchedulerKind>::names() {
  static const std::vector<std::string> names{"rflow", "ddpm", "ddim", "fast_ddpm"};
  return names;
}

const std::vector<std::string>& EnumSpellings<BetaSchedule>::names() {
  static const std::vector<std::string> names{"linear_beta", "scaled_linear_beta"};
  return names;
}

const std::vector<std::string>& EnumSpellings<PredictionType>::names() {
  static const std::vector<std::string> names{"epsilon", "sample", "v_prediction"};
  return names;
}

const std::vector<std::string>& EnumSpellings<TimestepSampling>::names() {
  static const std::vector<std::string> names{"uniform", "logit-normal"};
  return names;
}

const std::vector<std::string>& EnumSpellings<FastDdpmSchedule>::names() {
  static const std::vector<std::string> names{"uniform", "non-uniform"};
  return names;
}

}  // namespace medsynth
