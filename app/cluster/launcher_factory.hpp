// The one place a Launcher is chosen for a target: LocalLauncher on this
// machine (no cluster), SshLauncher for an SSH cluster, SlurmLauncher for a
// SLURM one. The console (app/session/launch_coordinator) and `medsynth run`
// (app/headless/cluster_run_command) both build theirs here, so a new kind
// of target is added in one file. Kubernetes has no launcher (the console
// writes manifests for kubectl): make_launcher returns null for it.
#pragma once

#include <memory>

#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"
#include "app/launch/local_launcher.hpp"

namespace medsynth::app {

struct LaunchRecord;

// `target` null: this machine, with `local`. `delegate` (not owned) answers a
// cluster's SSH questions and must outlive the launcher.
std::unique_ptr<Launcher> make_launcher(const ClusterSpec* target, AuthDelegate* delegate,
                                        const LocalLauncherOptions& local = {});

// The launch record of a cluster launcher (what `--attach` and the console's
// reattach read); null for a local one.
const LaunchRecord* launch_record_of(const Launcher& launcher);

// Follows a run started earlier from its record, on a launcher that
// make_launcher built for the record's cluster. False for a local launcher.
bool reattach(Launcher& launcher, const LaunchRecord& record);

}  // namespace medsynth::app
