// The job editor's planner line (issue 38): before Launch, the engine's
// estimate of a training step (config/job_plan.hpp) for the chosen target —
// this machine's memory and cores, as the Machine panel probed them, for
// the processes it will start; or a cluster's nodes, whose GPUs are
// estimated at an H100's measured rate. A job that cannot fit this machine
// is a warning before Launch (the estimate can be wrong, so Launch stays).
// No widgets.
#pragma once

#include <QString>

namespace medsynth {
struct JobSpec;
}

namespace medsynth::app {

struct JobPlanView {
  QString summary;  // "Estimate: peak 0.8 GiB per process, 0.33 s per step on 2 CPU cores (…)"
  QString warning;  // "" when it fits (or the machine is not probed)
};

// What the Machine panel probed (app/launch's MachineInfo, passed as values:
// app/jobs stays below app/launch).
struct PlanTarget {
  int cores = 0;            // 0: not probed
  double memory_gib = 0.0;  // 0: not probed
  bool gpu = false;         // a CUDA device to train on
  int processes = 1;        // the launch starts this many here
  bool cluster = false;     // the target is a cluster: this machine's memory does not matter
};

JobPlanView job_plan_view(const JobSpec& job, const PlanTarget& target);

}  // namespace medsynth::app
