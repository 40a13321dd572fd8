// One row per job field: what a researcher is told about it (label, unit,
// group, help) and what values it takes (range, allowed strings). The job
// validation checks ranges and choices from these rows, the console's form
// and field catalog show them, and tests hold the rows, the schema
// (job_schema.hpp: key, type and default of every field) and
// docs/job-file.md to the same list of paths. A field's default stays where
// its type is, in job_spec.hpp's member initialisers; visit_job reads it.
// Cross-field rules ("epochs >= 1 unless max_steps > 0") stay code, in
// job_validation.cpp. No LibTorch, no Qt: medsynth_config, linked by the console.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace medsynth {

// The values a number may take; for a list, every entry. Unset ends are open-ended.
struct JobFieldRange {
  std::optional<double> min;
  std::optional<double> max;
  bool min_exclusive = false;  // > min instead of >= min
  bool max_exclusive = false;  // < max instead of <= max

  bool contains(double value) const;
  bool empty() const { return !min && !max; }
  // "must be >= 1", "must be in (0, 1)", "must be in (0, 4096] MB".
  std::string requirement(const std::string& unit) const;
};

// The usual ranges, named as the job file documents them.
inline JobFieldRange at_least(double min) { return {min, std::nullopt, false, false}; }
inline JobFieldRange above(double min) { return {min, std::nullopt, true, false}; }
inline JobFieldRange between(double min, double max) { return {min, max, false, false}; }     // [min, max]
inline JobFieldRange between_open(double min, double max) { return {min, max, true, true}; }  // (min, max)
inline JobFieldRange from_below(double min, double max) { return {min, max, false, true}; }   // [min, max)
inline JobFieldRange above_to(double min, double max) { return {min, max, true, false}; }     // (min, max]

struct JobFieldRow {
  std::string path;   // "training.batch_size", as the job file nests it
  std::string label;  // "Batch size per process"
  std::string unit;   // "mm", "HU", "MB", "s", "voxels"; "" for counts and ratios
  std::string group;  // one of job_field_groups(); "" in the table: the section's group
  std::string help;
  JobFieldRange range;               // numbers and lists of numbers
  std::vector<std::string> choices;  // strings: the accepted values ("" choices: any text)
  bool advanced = false;             // folded away by default in the console's form
};

// The console's groups in display order ("Training", "Data", ...).
const std::vector<std::string>& job_field_groups();

// Every row, in job-file order, groups resolved.
const std::vector<JobFieldRow>& job_field_rows();
const JobFieldRow* find_job_field_row(std::string_view path);

}  // namespace medsynth
