#include "cli/process_group_from_environment.hpp"

#include "dist/dist_environment.hpp"
#include "state/device_choice.hpp"

namespace medsynth::cli {

std::unique_ptr<DistContext> process_group_from_environment(const JobSpec& job) {
  const DistEnvironment env = read_dist_environment(process_environment());
  if (!env.distributed()) return nullptr;
  ProcessGroupOptions pg;
  pg.backend = job.distributed.backend;
  pg.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(job.distributed.timeout_s * 1000));
  pg.join_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(job.distributed.join_timeout_s * 1000));
  return DistContext::connect(env, pg, training_device(job.training.device, env.local_rank));
}

}  // namespace medsynth::cli
