// The spellings of the job spec's enums as they appear in job files
// ("simulated", "folder", "csv"; "ct", "mri"). Used by the job reader/writer and
// by anyone who prints or logs a DataSpec (data loaders, the CLI, the console).
#pragma once

#include <cstddef>
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
// The data.source a `--data PATH` means, by its name: .csv a manifest, .json
// a datalist (any case), anything else a folder (validation names a path
// that is none).
DataSource data_source_for_path(std::string_view path);
const std::vector<std::string>& modality_names();

// The scheduler's enums (config/diffusion_spec.hpp): one table of spellings
// each, index = the enumerator's value, read by the job reader and writer, the
// NV-Generate config reader, the field rows' choices and the console's form.
template <class E>
struct EnumSpellings;
template <>
struct EnumSpellings<SchedulerKind> {
  static const std::vector<std::string>& names();
};
template <>
struct EnumSpellings<BetaSchedule> {
  static const std::vector<std::string>& names();
};
template <>
struct EnumSpellings<PredictionType> {
  static const std::vector<std::string>& names();
};
template <>
struct EnumSpellings<TimestepSampling> {
  static const std::vector<std::string>& names();
};
template <>
struct EnumSpellings<FastDdpmSchedule> {
  static const std::vector<std::string>& names();
};

template <class E>
concept SpelledEnum = requires {
  EnumSpellings<E>::names();
};

template <SpelledEnum E>
const std::vector<std::string>& enum_names() {
  return EnumSpellings<E>::names();
}

template <SpelledEnum E>
std::string_view to_string(E value) {
  return EnumSpellings<E>::names().at(static_cast<std::size_t>(value));
}

// Exact spellings only; nothing for anything else.
template <SpelledEnum E>
std::optional<E> parse_enum(std::string_view text) {
  const auto& names = EnumSpellings<E>::names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (text == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace medsynth
