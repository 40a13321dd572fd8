// `medsynth run --cluster CLUSTER.yaml JOB [key=value ...]`: the console's
// cluster launch without a window, for scripts and batch users. Launches over
// SSH or SLURM, prints node states and metrics as they arrive, and exits with
// 0 (completed), 1 (failed), 2 (bad command line or files) or 143 (stopped).
// Ctrl-C stops the run on every node (checkpoint first); a second Ctrl-C
// leaves it running and prints how to reattach (`--attach RECORD`). A
// kubernetes cluster writes manifests instead (`--k8s-manifest FILE`).
// Needs a QCoreApplication; no widgets (app/ layer).
#pragma once

#include <QStringList>

namespace medsynth::app {

// arguments: what follows "run" on the command line.
int run_cluster_command(const QStringList& arguments);
QString cluster_run_help();

}  // namespace medsynth::app
