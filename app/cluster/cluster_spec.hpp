// A cluster the console can launch on: SSH hosts (one engine launcher per
// node, started over libssh), a SLURM cluster (an sbatch script submitted on
// this machine or on a login host), or Kubernetes (a Job manifest to export).
// Read from a CLUSTER.yaml file (docs/cluster.md) or from the console's
// settings (ClusterInventory). There is no field for a password or a key
// passphrase, and the reader refuses one: secrets are asked for when needed
// (AuthDelegate) and never written anywhere.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace medsynth::app {

enum class ClusterKind { ssh, slurm, kubernetes };
QString to_string(ClusterKind kind);

struct ClusterHost {
  QString name;             // a label ("node-a"); default: address
  QString address;          // what the console connects to: a name, an IP or a Host alias of the ssh config
  int port = 0;             // 0: the ssh config's Port, else 22
  QString user;             // empty: the ssh config's User, else $USER
  QString key_file;         // empty: ssh-agent, the ssh config's IdentityFile, then ~/.ssh/id_*
  QString work_dir;         // remote working directory; launches and runs live under it
  QString engine = QStringLiteral("medsynth-engine");  // the remote engine (path or name on PATH)
  QString cluster_address;  // how the other nodes reach this one (rendezvous); empty: address

  QString label() const { return name.isEmpty() ? address : name; }
  // An ssh config alias is not a name the other nodes know: the launcher
  // passes the alias's HostName instead (resolve_ssh_host_name).
  QString rendezvous_address() const { return cluster_address.isEmpty() ? address : cluster_address; }
  // user@address:port (no port when 0), for messages; SshShell::where() says
  // what the ssh config made of it.
  QString endpoint() const;
};

struct SlurmSettings {
  QString login_host;       // a host name of `hosts` to submit on over SSH; empty: this machine
  int nodes = 1;
  int tasks_per_node = 1;   // one engine process per GPU
  int gpus_per_node = 0;
  int cpus_per_task = 0;    // 0: SLURM's default
  QString partition;        // empty: the default partition
  QString account;
  QString time_limit = QStringLiteral("01:00:00");
  int signal_seconds = 90;  // --signal=USR1@N: checkpoint and requeue this long before the limit
  bool requeue = true;
  QString work_dir;         // where the launch directories go (on the login host)
  QString engine = QStringLiteral("medsynth-engine");
  QStringList extra_directives;  // more "#SBATCH ..." lines, e.g. "--qos=high"
};

struct KubernetesSettings {
  QString image;            // a container image with medsynth-engine on PATH
  QString name_space = QStringLiteral("default");
  int nodes = 1;
  int gpus_per_node = 0;
  QString data_claim;       // a PersistentVolumeClaim mounted at /data (empty: none)
  QString runs_claim;       // mounted at /runs (empty: an emptyDir)
};

struct ClusterSpec {
  QString name;
  ClusterKind kind = ClusterKind::ssh;
  QList<ClusterHost> hosts;
  QString known_hosts;      // empty: ~/.ssh/known_hosts
  QString ssh_config;       // empty: ~/.ssh/config, then /etc/ssh/ssh_config; set: only this file (as ssh -F)
  int master_port = 29500;  // rendezvous port on node 0 (0 under SLURM: derived from the job id)
  int nproc_per_node = 1;   // SSH: engine processes per node ("gpu" is chosen by the engine when 0)
  int connect_timeout_s = 10;
  SlurmSettings slurm;
  KubernetesSettings kubernetes;

  // Empty when usable; else one message per problem naming the field
  // ("hosts[1].port: must be 1..65535 (got 0)").
  QStringList validate() const;
  QString known_hosts_path() const;  // known_hosts, or ~/.ssh/known_hosts
  QString ssh_config_path() const;   // ssh_config with ~ expanded; empty: the default files
  const ClusterHost* find_host(const QString& name) const;
};

// Parses CLUSTER.yaml text. On error returns nullopt and sets *error to
// "SOURCE: FIELD: what is wrong" (unknown keys, secrets, wrong types and the
// validate() problems).
std::optional<ClusterSpec> parse_cluster_yaml(const QString& text, const QString& source, QString* error);
std::optional<ClusterSpec> load_cluster_file(const QString& path, QString* error);
QString cluster_to_yaml(const ClusterSpec& spec);

}  // namespace medsynth::app
