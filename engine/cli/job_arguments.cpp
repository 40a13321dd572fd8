#include "cli/job_arguments.hpp"

#include "config/job_enums.hpp"
#include "config/job_loader.hpp"

namespace medsynth::cli {

std::vector<std::string> data_overrides(const std::string& data) {
  if (data.empty()) return {};
  return {"data.source=" + std::string(to_string(data_source_for_path(data))), "data.path=" + data};
}

JobSpec load_job(const std::string& job_file, const std::string& data, const std::vector<std::string>& overrides) {
  std::vector<std::string> all = data_overrides(data);
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_job_file_with_overrides(job_file, all);
}

}  // namespace medsynth::cli
