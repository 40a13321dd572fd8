// kubernetes_manifest(): ConfigMap + headless Service + Indexed Job, via yaml-cpp.
#include "app/cluster/k8s_manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <QRegularExpression>

#include "contract/run_directory.hpp"

namespace medsynth::app {
namespace {
std::string s(const QString& text) { return text.toStdString(); }
}  // namespace

QString kubernetes_name(const QString& job_name) {
  QString n = QStringLiteral("medsynth-") + job_name.toLower();
  n.replace(QRegularExpression(QStringLiteral("[^a-z0-9-]+")), QStringLiteral("-"));
  n = n.left(50);
  while (n.endsWith(QLatin1Char('-'))) n.chop(1);
  return n;
}

namespace {

// The job file, mounted at /job.
void emit_config_map(YAML::Emitter& out, const QString& name, const KubernetesSettings& k, const QString& job_text) {
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value << "ConfigMap";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s(name + QStringLiteral("-job"))
      << YAML::Key << "namespace" << YAML::Value << s(k.name_space) << YAML::EndMap;
  out << YAML::Key << "data" << YAML::Value << YAML::BeginMap << YAML::Key << k_job_file << YAML::Value << YAML::Literal
      << s(job_text) << YAML::EndMap;
  out << YAML::EndMap;
}

void emit_service(YAML::Emitter& out, const QString& name, const KubernetesSettings& k, int port) {
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1" << YAML::Key << "kind" << YAML::Value << "Service";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s(name) << YAML::Key << "namespace"
      << YAML::Value << s(k.name_space) << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "clusterIP" << YAML::Value << "None";  // headless: pod DNS names
  out << YAML::Key << "selector" << YAML::Value << YAML::BeginMap << YAML::Key << "job-name" << YAML::Value << s(name) << YAML::EndMap;
  out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "rendezvous"
      << YAML::Key << "port" << YAML::Value << port << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap << YAML::EndMap;
}

// Each pod's command: one node of the launch, its rank the pod's completion index.
QStringList engine_command(const KubernetesSettings& k, const LaunchRequest& request, const QString& name, int port,
                           int nproc) {
  QStringList command{QStringLiteral("medsynth-engine"), QStringLiteral("launch"),
                      QStringLiteral("--nnodes"), QString::number(k.nodes),
                      QStringLiteral("--node-rank"), QStringLiteral("$(JOB_COMPLETION_INDEX)"),
                      QStringLiteral("--master-addr"), QStringLiteral("%1-0.%1").arg(name),
                      QStringLiteral("--master-port"), QString::number(port),
                      QStringLiteral("--nproc-per-node"), QString::number(nproc)};
  if (request.max_restarts > 0) command << QStringLiteral("--max-restarts") << QString::number(request.max_restarts);
  command << QStringLiteral("train") << QStringLiteral("/job/") + QLatin1String(k_job_file) << request.overrides
          << QStringLiteral("--no-progress") << QStringLiteral("--runs-dir") << QStringLiteral("/runs")
          << QStringLiteral("--resume") << QStringLiteral("auto");
  if (!request.data_path.isEmpty()) command << QStringLiteral("--data") << request.data_path;
  return command;
}

// The pod's one container (an entry of containers:).
void emit_container(YAML::Emitter& out, const KubernetesSettings& k, int port, const QStringList& command) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << "engine" << YAML::Key << "image" << YAML::Value << s(k.image);
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const QString& c : command) out << s(c);
  out << YAML::EndSeq;
  out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key << "containerPort" << YAML::Value << port
      << YAML::EndMap << YAML::EndSeq;
  if (k.gpus_per_node > 0)
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "limits" << YAML::Value << YAML::BeginMap << YAML::Key
        << "nvidia.com/gpu" << YAML::Value << k.gpus_per_node << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "job" << YAML::Key << "mountPath" << YAML::Value << "/job" << YAML::EndMap;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "runs" << YAML::Key << "mountPath" << YAML::Value << "/runs" << YAML::EndMap;
  if (!k.data_claim.isEmpty())
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "data" << YAML::Key << "mountPath" << YAML::Value << "/data" << YAML::EndMap;
  // NCCL needs more shared memory than a container's default 64 MB.
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "shm" << YAML::Key << "mountPath" << YAML::Value << "/dev/shm" << YAML::EndMap;
  out << YAML::EndSeq;
  out << YAML::EndMap;  // container
}

// The pod spec's volumes: the job file, the runs, the data (if claimed), /dev/shm.
void emit_volumes(YAML::Emitter& out, const QString& name, const KubernetesSettings& k) {
  out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "job" << YAML::Key << "configMap" << YAML::Value << YAML::BeginMap
      << YAML::Key << "name" << YAML::Value << s(name + QStringLiteral("-job")) << YAML::EndMap << YAML::EndMap;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "runs";
  if (k.runs_claim.isEmpty()) out << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap << YAML::EndMap;
  else out << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap << YAML::Key << "claimName" << YAML::Value << s(k.runs_claim) << YAML::EndMap;
  out << YAML::EndMap;
  if (!k.data_claim.isEmpty())
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "data" << YAML::Key << "persistentVolumeClaim" << YAML::Value
        << YAML::BeginMap << YAML::Key << "claimName" << YAML::Value << s(k.data_claim) << YAML::EndMap << YAML::EndMap;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "shm" << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap
      << YAML::Key << "medium" << YAML::Value << "Memory" << YAML::EndMap << YAML::EndMap;
  out << YAML::EndSeq;
}

void emit_job(YAML::Emitter& out, const QString& name, const KubernetesSettings& k, const LaunchRequest& request,
              int port, const QStringList& command) {
  out << YAML::BeginDoc << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "batch/v1" << YAML::Key << "kind" << YAML::Value << "Job";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s(name)
      << YAML::Key << "namespace" << YAML::Value << s(k.name_space) << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "completionMode" << YAML::Value << "Indexed";
  out << YAML::Key << "completions" << YAML::Value << k.nodes << YAML::Key << "parallelism" << YAML::Value << k.nodes;
  // A failed pod restarts the whole job from its checkpoint (--resume auto),
  // as our launcher's --max-restarts does on one node.
  out << YAML::Key << "backoffLimit" << YAML::Value << std::max(0, request.max_restarts);
  out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "subdomain" << YAML::Value << s(name);
  out << YAML::Key << "restartPolicy" << YAML::Value << "Never";
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq;
  emit_container(out, k, port, command);
  out << YAML::EndSeq;  // containers
  emit_volumes(out, name, k);
  out << YAML::EndMap << YAML::EndMap;  // pod spec, template
  out << YAML::EndMap << YAML::EndMap;  // job spec, job
}

}  // namespace

QString kubernetes_manifest(const ClusterSpec& cluster, const LaunchRequest& request, const QString& job_name,
                            const QString& job_text) {
  const KubernetesSettings& k = cluster.kubernetes;
  const QString name = kubernetes_name(job_name);
  const int port = cluster.master_port > 0 ? cluster.master_port : 29500;
  const int nproc = k.gpus_per_node > 0 ? k.gpus_per_node : request.nproc_per_node;
  YAML::Emitter out;
  emit_config_map(out, name, k, job_text);
  emit_service(out, name, k, port);
  emit_job(out, name, k, request, port, engine_command(k, request, name, port, nproc));
  return QString::fromUtf8(out.c_str()) + QLatin1Char('\n');
}

}  // namespace medsynth::app
