// "Test connection" for one host: reachable? host key known? authenticated?
// which engine (`medsynth-engine info --json`: version, CUDA devices) and
// which GPUs (`nvidia-smi`, when the host has it)? Blocking (seconds at
// most: connect_timeout_s); the GUI runs it on a worker thread.
#pragma once

#include <QString>

#include "app/cluster/auth_delegate.hpp"
#include "app/cluster/cluster_spec.hpp"

namespace medsynth::app {

struct HostCheck {
  bool connected = false;    // reached, host key accepted, authenticated
  QString error;             // why not (names the host and the cause)
  QString fingerprint;       // SHA256:... of the host key
  QString engine_version;    // "0.1.0"; empty: the engine did not answer
  QString engine_problem;    // why the engine did not answer
  int cuda_devices = 0;
  QString gpus;              // nvidia-smi's name and memory per GPU, one per line; empty: none
  qint64 elapsed_ms = 0;

  bool ok() const { return connected && !engine_version.isEmpty(); }
  QString summary() const;   // one line for a table cell or the terminal
};

HostCheck check_host(const ClusterSpec& cluster, const ClusterHost& host, AuthDelegate* delegate);

}  // namespace medsynth::app
