// check_host(): connect, `engine info --json`, `nvidia-smi`.
#include "app/cluster/host_check.hpp"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>

#include "app/cluster/ssh_shell.hpp"

namespace medsynth::app {

QString HostCheck::summary() const {
  if (!connected) return QStringLiteral("unreachable: ") + error;
  QString s = QStringLiteral("connected in %1 ms").arg(elapsed_ms);
  s += engine_version.isEmpty() ? QStringLiteral("; engine: ") + engine_problem : QStringLiteral("; medsynth-engine %1").arg(engine_version);
  s += gpus.isEmpty() ? QStringLiteral("; no NVIDIA GPU") : QStringLiteral("; GPUs: ") + QString(gpus).replace(QLatin1Char('\n'), QStringLiteral(", "));
  return s;
}

HostCheck check_host(const ClusterSpec& cluster, const ClusterHost& host, AuthDelegate* delegate) {
  HostCheck c;
  QElapsedTimer timer;
  timer.start();
  auto shell = SshShell::connect(host, SshConnectOptions::for_cluster(cluster, delegate), &c.error);
  c.elapsed_ms = timer.elapsed();
  if (!shell) return c;
  c.connected = true;
  c.fingerprint = shell->fingerprint();
  const ShellResult info = shell->run(shell_quote(host.engine) + QStringLiteral(" info --json"), {}, 60000);
  if (info.ok()) {
    const QJsonObject o2 = QJsonDocument::fromJson(info.out).object();
    c.engine_version = o2.value(QStringLiteral("medsynth")).toString();
    c.cuda_devices = o2.value(QStringLiteral("cuda_device_count")).toInt();
    if (c.engine_version.isEmpty()) c.engine_problem = QStringLiteral("'%1 info --json' did not print a version").arg(host.engine);
  } else {
    c.engine_problem = QStringLiteral("'%1 info --json' failed: %2").arg(host.engine, info.problem());
  }
  const ShellResult smi = shell->run(QStringLiteral("command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true"), {}, 30000);
  c.gpus = QString::fromUtf8(smi.out).trimmed();
  return c;
}

}  // namespace medsynth::app
