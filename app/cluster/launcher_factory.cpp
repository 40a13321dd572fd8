#include "app/cluster/launcher_factory.hpp"

#include "app/cluster/launch_record.hpp"
#include "app/cluster/slurm_launcher.hpp"
#include "app/cluster/ssh_launcher.hpp"

namespace medsynth::app {

std::unique_ptr<Launcher> make_launcher(const ClusterSpec* target, AuthDelegate* delegate,
                                        const LocalLauncherOptions& local) {
  if (!target) return std::make_unique<LocalLauncher>(nullptr, local);
  switch (target->kind) {
    case ClusterKind::ssh: {
      SshLauncherOptions o;
      o.cluster = *target;
      o.delegate = delegate;
      return std::make_unique<SshLauncher>(o);
    }
    case ClusterKind::slurm: {
      SlurmLauncherOptions o;
      o.cluster = *target;
      o.delegate = delegate;
      return std::make_unique<SlurmLauncher>(o);
    }
    case ClusterKind::kubernetes:
      return nullptr;
  }
  return nullptr;
}

const LaunchRecord* launch_record_of(const Launcher& launcher) {
  if (const auto* ssh = dynamic_cast<const SshLauncher*>(&launcher)) return &ssh->record();
  if (const auto* slurm = dynamic_cast<const SlurmLauncher*>(&launcher)) return &slurm->record();
  return nullptr;
}

bool reattach(Launcher& launcher, const LaunchRecord& record) {
  if (auto* ssh = dynamic_cast<SshLauncher*>(&launcher)) {
    ssh->reattach(record);
    return true;
  }
  if (auto* slurm = dynamic_cast<SlurmLauncher*>(&launcher)) {
    slurm->reattach(record);
    return true;
  }
  return false;
}

}  // namespace medsynth::app
