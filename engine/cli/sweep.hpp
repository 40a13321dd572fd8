// Running a sweep (cli/sweep_plan.hpp plans it): `medsynth-engine sweep`,
// and `train -m`, Hydra's spelling, which sweeps with one process per run.
#pragma once

#include <string>
#include <vector>

namespace medsynth::cli {

struct SweepArguments {
  std::string job_file, nproc = "1", runs_dir, data;
  std::vector<std::string> overrides;
  bool dry_run = false;
};

// Trains every run of the plan, reports them and writes the summary; 0 when
// every run completed. UsageError/ConfigError before the first run starts.
int run_sweep(const SweepArguments& a);

}  // namespace medsynth::cli
