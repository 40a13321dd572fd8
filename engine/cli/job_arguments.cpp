#include "cli/job_arguments.hpp"

#include <filesystem>

#include "config/job_loader.hpp"

namespace medsynth::cli {

std::vector<std::string> data_overrides(const std::string& data) {
  if (data.empty()) return {};
  const bool csv = std::filesystem::path(data).extension() == ".csv";
  return {std::string("data.source=") + (csv ? "csv" : "folder"), "data.path=" + data};
}

JobSpec load_job(const std::string& job_file, const std::string& data, const std::vector<std::string>& overrides) {
  std::vector<std::string> all = data_overrides(data);
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_job_file_with_overrides(job_file, all);
}

}  // namespace medsynth::cli
