#include "cli/job_arguments.hpp"

#include <filesystem>

#include "config/job_enums.hpp"
#include "config/job_loader.hpp"
#include "diffusion/ldm_pipeline.hpp"
#include "contract/run_directory.hpp"

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

JobSpec load_job_or_run(const std::string& job_or_run, const std::string& data,
                        const std::vector<std::string>& overrides) {
  if (!std::filesystem::is_directory(job_or_run)) return load_job(job_or_run, data, overrides);
  // The user's overrides after the run's, so that `ldm.diffusion_init=` still trains from scratch.
  std::vector<std::string> all = overrides_starting_from_run(job_or_run);
  all.insert(all.end(), overrides.begin(), overrides.end());
  return load_job(RunDirectory{job_or_run}.job_file(), data, all);
}

}  // namespace medsynth::cli
