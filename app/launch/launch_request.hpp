// What to run: a job file plus the launcher's own options (processes per
// node, restarts: torchrun's business, not the job file's). Built by the ui's
// launch dialog, validated before any launcher starts a process.
#pragma once

#include <QString>
#include <QStringList>

namespace medsynth::app {

struct LaunchRequest {
  QString job_file;        // a job file, or a run directory: `train RUN` starts a new run from its networks
  QStringList overrides;   // Hydra-style key=value (docs/job-file.md)
  QString runs_dir;        // empty: the job's output.runs_dir
  int nproc_per_node = 1;
  int max_restarts = 0;
  QString resume_run_dir;  // a run directory, a checkpoint file or "auto"
  QString data_path;       // --data: a folder of volumes (or of case folders), a CSV manifest or a datalist JSON
  // Set from a template the engine cannot train yet (JobTemplate::pending_reason):
  // such a request is always refused.
  QString pending_reason;
  // Set for a cluster launch: resume_run_dir and data_path name paths on the
  // nodes, which this machine cannot see. validate() then checks only that
  // they are absolute; the engine on each node checks that they exist and
  // fails naming the path (exit 2 or 3) before it trains.
  bool paths_on_nodes = false;
  // Set: generate from this run directory instead of training job_file
  // (`generate RUN`, the event stream of generate --json), with
  // generate_arguments after it (--num-images N, --label MAP, key=value
  // overrides). On this machine only (LocalLauncher); job_file is unused.
  QString generate_run_dir;
  QStringList generate_arguments;

  // Empty when the request can be started; else one message per problem,
  // naming the field ("nproc_per_node: must be >= 1 (got 0)"). Checks that
  // the job file and, for a local launch, the paths exist (a few stat calls).
  QStringList validate() const;
};

}  // namespace medsynth::app
