// The process group of a verb started by our launcher, torchrun or srun (the
// environment says so), or null for a single process. Shared by train,
// encode and generate so that all three run distributed the same way.
#pragma once

#include <memory>

#include "config/job_spec.hpp"
#include "dist/process_group.hpp"

namespace medsynth::cli {

std::unique_ptr<DistContext> process_group_from_environment(const JobSpec& job);

}  // namespace medsynth::cli
