// A cluster run for Kubernetes users (the Fast-DDPM seed trains on pods): the
// job exported as manifests to `kubectl apply -f`. A ConfigMap holds the job
// file; a headless Service gives pod 0 a stable name for the rendezvous; an
// Indexed Job runs one pod per node, each `medsynth-engine launch --nnodes N
// --node-rank $JOB_COMPLETION_INDEX --master-addr <job>-0.<service>` with its
// GPUs as nvidia.com/gpu limits. The console does not talk to the API server.
#pragma once

#include <QString>

#include "app/cluster/cluster_spec.hpp"
#include "app/launch/launch_request.hpp"

namespace medsynth::app {

// job_name: a DNS-1123 label is made of it ("MAISI ldm" -> "medsynth-maisi-ldm").
QString kubernetes_manifest(const ClusterSpec& cluster, const LaunchRequest& request, const QString& job_name, const QString& job_text);
QString kubernetes_name(const QString& job_name);

}  // namespace medsynth::app
