// CLUSTER.yaml: strict reading (unknown keys and secrets are errors), validation.
#include "app/cluster/cluster_spec.hpp"

#include <yaml-cpp/yaml.h>

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <set>

namespace medsynth::app {
namespace {

// Keys that would hold a secret: refused with the reason, never stored.
const std::set<std::string> k_secret_keys{"password", "passphrase", "key_passphrase", "secret", "token"};

struct Reader {
  QString source;
  QStringList errors;

  void check_keys(const YAML::Node& map, const QString& where, const std::set<std::string>& allowed) {
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        errors << (where.isEmpty() ? QString() : where + QStringLiteral(": ")) + QStringLiteral("a field name must be a text");
        continue;
      }
      const std::string key = kv.first.Scalar();
      const QString field = where.isEmpty() ? QString::fromStdString(key) : where + QLatin1Char('.') + QString::fromStdString(key);
      if (k_secret_keys.count(key))
        errors << QStringLiteral("%1: passwords and passphrases are never stored; use a key file or ssh-agent "
                                 "(the console asks for a key's passphrase when it needs it)").arg(field);
      else if (!allowed.count(key))
        errors << QStringLiteral("%1: unknown field").arg(field);
    }
  }
  QString text(const YAML::Node& map, const char* key, const QString& where, const QString& fallback) {
    const YAML::Node n = map[key];
    if (!n) return fallback;
    if (!n.IsScalar()) {
      errors << QStringLiteral("%1%2: must be a text").arg(where, QString::fromLatin1(key));
      return fallback;
    }
    return QString::fromStdString(n.as<std::string>());
  }
  int number(const YAML::Node& map, const char* key, const QString& where, int fallback) {
    const YAML::Node n = map[key];
    if (!n) return fallback;
    try {
      return n.as<int>();
    } catch (const YAML::Exception&) {
      errors << QStringLiteral("%1%2: must be a whole number (got '%3')")
                    .arg(where, QString::fromLatin1(key), n.IsScalar() ? QString::fromStdString(n.Scalar()) : QStringLiteral("a list or map"));
      return fallback;
    }
  }
  // A section (slurm:, kubernetes:) is a map; empty counts as absent. A scalar
  // or a list there is an error, not a YAML exception deeper down.
  bool section(const YAML::Node& n, const QString& field, const char* example) {
    if (!n || n.IsNull()) return false;
    if (n.IsMap()) return true;
    errors << QStringLiteral("%1: must be a map (%2)").arg(field, QString::fromLatin1(example));
    return false;
  }
  bool flag(const YAML::Node& map, const char* key, const QString& where, bool fallback) {
    const YAML::Node n = map[key];
    if (!n) return fallback;
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
      errors << QStringLiteral("%1%2: must be true or false").arg(where, QString::fromLatin1(key));
      return fallback;
    }
  }
};

QString home_path(const QString& path) {
  if (path == QStringLiteral("~") || path.startsWith(QStringLiteral("~/"))) return QDir::homePath() + path.mid(1);
  return path;
}

void emit_text(YAML::Emitter& out, const char* key, const QString& value, const QString& fallback = {}) {
  if (value == fallback) return;
  out << YAML::Key << key << YAML::Value << value.toStdString();
}
void emit_number(YAML::Emitter& out, const char* key, int value, int fallback) {
  if (value == fallback) return;
  out << YAML::Key << key << YAML::Value << value;
}

}  // namespace

QString to_string(ClusterKind kind) {
  switch (kind) {
    case ClusterKind::ssh: return QStringLiteral("ssh");
    case ClusterKind::slurm: return QStringLiteral("slurm");
    case ClusterKind::kubernetes: return QStringLiteral("kubernetes");
  }
  return {};
}

QString ClusterHost::endpoint() const {
  const QString who = user.isEmpty() ? qEnvironmentVariable("USER", QStringLiteral("root")) : user;
  if (port == 0) return QStringLiteral("%1@%2").arg(who, address);
  return QStringLiteral("%1@%2:%3").arg(who, address).arg(port);
}

QString ClusterSpec::known_hosts_path() const {
  return known_hosts.isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh/known_hosts") : home_path(known_hosts);
}

QString ClusterSpec::ssh_config_path() const { return ssh_config.isEmpty() ? QString() : home_path(ssh_config); }

const ClusterHost* ClusterSpec::find_host(const QString& host_name) const {
  for (const auto& h : hosts)
    if (h.label() == host_name) return &h;
  return nullptr;
}

QStringList ClusterSpec::validate() const {
  QStringList e;
  static const QRegularExpression name_re(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*$"));
  if (!name_re.match(name).hasMatch())
    e << QStringLiteral("name: must be letters, digits, '.', '_' or '-' (got '%1')").arg(name);
  if (master_port < 0 || master_port > 65535) e << QStringLiteral("master_port: must be 0..65535 (got %1)").arg(master_port);
  if (kind == ClusterKind::ssh && master_port == 0)
    e << QStringLiteral("master_port: an SSH cluster needs a fixed rendezvous port (every node must know it)");
  if (nproc_per_node < 1 || nproc_per_node > 64) e << QStringLiteral("nproc_per_node: must be 1..64 (got %1)").arg(nproc_per_node);
  if (connect_timeout_s < 1 || connect_timeout_s > 600)
    e << QStringLiteral("connect_timeout_s: must be 1..600 (got %1)").arg(connect_timeout_s);
  if (!ssh_config.isEmpty() && !QFile::exists(home_path(ssh_config)))
    e << QStringLiteral("ssh_config: %1 does not exist").arg(ssh_config);
  if (kind == ClusterKind::ssh && hosts.isEmpty()) e << QStringLiteral("hosts: an SSH cluster needs at least one host");
  QStringList labels;
  for (int i = 0; i < hosts.size(); ++i) {
    const ClusterHost& h = hosts[i];
    const QString at = QStringLiteral("hosts[%1].").arg(i);
    if (h.address.isEmpty()) e << at + QStringLiteral("address: missing");
    if (h.address.contains(QLatin1Char(' ')) || h.address.startsWith(QLatin1Char('-')))
      e << at + QStringLiteral("address: '%1' is not a host name or address").arg(h.address);
    if (h.port < 0 || h.port > 65535) e << at + QStringLiteral("port: must be 1..65535 (got %1)").arg(h.port);
    if (h.work_dir.isEmpty()) e << at + QStringLiteral("work_dir: missing (the remote directory for launches and runs)");
    else if (!h.work_dir.startsWith(QLatin1Char('/'))) e << at + QStringLiteral("work_dir: must be an absolute path (got '%1')").arg(h.work_dir);
    if (h.engine.isEmpty()) e << at + QStringLiteral("engine: missing (the remote medsynth-engine)");
    if (!h.key_file.isEmpty() && !QFile::exists(home_path(h.key_file)))
      e << at + QStringLiteral("key_file: %1 does not exist").arg(h.key_file);
    if (labels.contains(h.label())) e << at + QStringLiteral("name: '%1' is used twice").arg(h.label());
    labels << h.label();
  }
  if (kind == ClusterKind::slurm) {
    const SlurmSettings& s = slurm;
    if (!s.login_host.isEmpty() && !find_host(s.login_host))
      e << QStringLiteral("slurm.login_host: '%1' is not one of hosts").arg(s.login_host);
    if (s.nodes < 1) e << QStringLiteral("slurm.nodes: must be >= 1 (got %1)").arg(s.nodes);
    if (s.tasks_per_node < 1) e << QStringLiteral("slurm.tasks_per_node: must be >= 1 (got %1)").arg(s.tasks_per_node);
    if (s.gpus_per_node < 0) e << QStringLiteral("slurm.gpus_per_node: must be >= 0 (got %1)").arg(s.gpus_per_node);
    if (s.cpus_per_task < 0) e << QStringLiteral("slurm.cpus_per_task: must be >= 0 (got %1)").arg(s.cpus_per_task);
    static const QRegularExpression time_re(QStringLiteral(R"(^(\d+-)?\d+(:\d\d){0,2}$)"));
    if (!time_re.match(s.time_limit).hasMatch())
      e << QStringLiteral("slurm.time: '%1' is not a SLURM time (MM, HH:MM:SS or D-HH:MM:SS)").arg(s.time_limit);
    if (s.signal_seconds < 0 || s.signal_seconds > 65535)
      e << QStringLiteral("slurm.signal_seconds: must be 0..65535 (got %1)").arg(s.signal_seconds);
    if (s.login_host.isEmpty() && !s.work_dir.startsWith(QLatin1Char('/')))
      e << QStringLiteral("slurm.work_dir: must be an absolute path on this machine (got '%1')").arg(s.work_dir);
    // partition, account and the launch directory are written into #SBATCH
    // lines: a newline there would add a line to the batch script.
    static const QRegularExpression partition_re(QStringLiteral("^[A-Za-z0-9_.,-]*$")), account_re(QStringLiteral("^[A-Za-z0-9_.-]*$"));
    if (!partition_re.match(s.partition).hasMatch())
      e << QStringLiteral("slurm.partition: '%1' is not a partition name (letters, digits, '_', '.', '-'; ',' between several)").arg(s.partition);
    if (!account_re.match(s.account).hasMatch())
      e << QStringLiteral("slurm.account: '%1' is not an account name (letters, digits, '_', '.', '-')").arg(s.account);
    static const QRegularExpression space_or_control(QStringLiteral("[\\s\\x00-\\x1f\\x7f]"));
    if (space_or_control.match(s.work_dir).hasMatch())
      e << QStringLiteral("slurm.work_dir: must not contain spaces or control characters (it goes into #SBATCH lines)");
    if (const ClusterHost* login = find_host(s.login_host); login && space_or_control.match(login->work_dir).hasMatch())
      e << QStringLiteral("hosts: %1's work_dir must not contain spaces or control characters (it goes into #SBATCH lines)").arg(s.login_host);
    for (const QString& d : s.extra_directives)
      if (!d.startsWith(QStringLiteral("--")) || d.contains(QLatin1Char('\n')))
        e << QStringLiteral("slurm.extra_directives: '%1' must be one sbatch option starting with --").arg(d);
  }
  if (kind == ClusterKind::kubernetes) {
    if (kubernetes.image.isEmpty()) e << QStringLiteral("kubernetes.image: missing (an image with medsynth-engine on PATH)");
    if (kubernetes.nodes < 1) e << QStringLiteral("kubernetes.nodes: must be >= 1 (got %1)").arg(kubernetes.nodes);
    if (kubernetes.nodes > 1 && kubernetes.runs_claim.isEmpty())
      e << QStringLiteral("kubernetes.runs_claim: %1 nodes share one run directory: name a ReadWriteMany PersistentVolumeClaim")
               .arg(kubernetes.nodes);
    if (kubernetes.gpus_per_node < 0) e << QStringLiteral("kubernetes.gpus_per_node: must be >= 0 (got %1)").arg(kubernetes.gpus_per_node);
  }
  return e;
}

namespace {

ClusterHost read_host(Reader& r, const YAML::Node& h, const QString& at) {
  r.check_keys(h, at.chopped(1),
               {"name", "address", "port", "user", "key_file", "work_dir", "engine", "cluster_address"});
  ClusterHost host;
  host.name = r.text(h, "name", at, {});
  host.address = r.text(h, "address", at, {});
  host.port = r.number(h, "port", at, host.port);
  // Absent is 0 (the ssh config decides); written, it must be a real port.
  if (h["port"] && host.port == 0) r.errors << at + QStringLiteral("port: must be 1..65535 (got 0)");
  host.user = r.text(h, "user", at, {});
  host.key_file = r.text(h, "key_file", at, {});
  host.work_dir = r.text(h, "work_dir", at, {});
  host.engine = r.text(h, "engine", at, host.engine);
  host.cluster_address = r.text(h, "cluster_address", at, {});
  return host;
}

void read_hosts(Reader& r, const YAML::Node& hosts, QList<ClusterHost>* out) {
  if (!hosts.IsSequence()) r.errors << QStringLiteral("hosts: must be a list");
  for (std::size_t i = 0; hosts.IsSequence() && i < hosts.size(); ++i) {
    const YAML::Node h = hosts[i];
    const QString at = QStringLiteral("hosts[%1].").arg(i);
    if (!h.IsMap()) {
      r.errors << at.chopped(1) + QStringLiteral(": must be a map (address:, user:, ...)");
      continue;
    }
    *out << read_host(r, h, at);
  }
}

void read_slurm_settings(Reader& r, const YAML::Node& s, SlurmSettings* d) {
  r.check_keys(s, QStringLiteral("slurm"),
               {"login_host", "nodes", "tasks_per_node", "gpus_per_node", "cpus_per_task", "partition", "account",
                "time", "signal_seconds", "requeue", "work_dir", "engine", "extra_directives"});
  const QString at = QStringLiteral("slurm.");
  d->login_host = r.text(s, "login_host", at, {});
  d->nodes = r.number(s, "nodes", at, d->nodes);
  d->tasks_per_node = r.number(s, "tasks_per_node", at, d->tasks_per_node);
  d->gpus_per_node = r.number(s, "gpus_per_node", at, d->gpus_per_node);
  d->cpus_per_task = r.number(s, "cpus_per_task", at, d->cpus_per_task);
  d->partition = r.text(s, "partition", at, {});
  d->account = r.text(s, "account", at, {});
  d->time_limit = r.text(s, "time", at, d->time_limit);
  d->signal_seconds = r.number(s, "signal_seconds", at, d->signal_seconds);
  d->requeue = r.flag(s, "requeue", at, d->requeue);
  d->work_dir = r.text(s, "work_dir", at, {});
  d->engine = r.text(s, "engine", at, d->engine);
  if (const YAML::Node x = s["extra_directives"]) {
    if (!x.IsSequence()) r.errors << QStringLiteral("slurm.extra_directives: must be a list");
    for (std::size_t i = 0; x.IsSequence() && i < x.size(); ++i) {
      if (x[i].IsScalar())
        d->extra_directives << QString::fromStdString(x[i].Scalar());
      else
        r.errors << QStringLiteral("slurm.extra_directives[%1]: must be a text (one #SBATCH option, e.g. --qos=high)")
                        .arg(i);
    }
  }
}

void read_kubernetes_settings(Reader& r, const YAML::Node& k, KubernetesSettings* d) {
  r.check_keys(k, QStringLiteral("kubernetes"),
               {"image", "namespace", "nodes", "gpus_per_node", "data_claim", "runs_claim"});
  const QString at = QStringLiteral("kubernetes.");
  d->image = r.text(k, "image", at, {});
  d->name_space = r.text(k, "namespace", at, d->name_space);
  d->nodes = r.number(k, "nodes", at, d->nodes);
  d->gpus_per_node = r.number(k, "gpus_per_node", at, d->gpus_per_node);
  d->data_claim = r.text(k, "data_claim", at, {});
  d->runs_claim = r.text(k, "runs_claim", at, {});
}

}  // namespace

static std::optional<ClusterSpec> read_cluster_yaml(const QString& text, const QString& source, QString* error) {
  Reader r{source, {}};
  YAML::Node root;
  try {
    root = YAML::Load(text.toStdString());
  } catch (const YAML::ParserException& ex) {
    if (error) *error = QStringLiteral("%1:%2: not valid YAML: %3").arg(source).arg(ex.mark.line + 1).arg(QString::fromStdString(ex.msg));
    return std::nullopt;
  }
  if (!root.IsMap()) {
    if (error) *error = source + QStringLiteral(": a cluster file is a map (name:, kind:, hosts: ...)");
    return std::nullopt;
  }
  ClusterSpec spec;
  r.check_keys(root, {}, {"name", "kind", "hosts", "known_hosts", "ssh_config", "master_port", "nproc_per_node", "connect_timeout_s", "slurm", "kubernetes"});
  spec.name = r.text(root, "name", {}, {});
  const QString kind = r.text(root, "kind", {}, QStringLiteral("ssh"));
  if (kind == QStringLiteral("ssh")) spec.kind = ClusterKind::ssh;
  else if (kind == QStringLiteral("slurm")) spec.kind = ClusterKind::slurm;
  else if (kind == QStringLiteral("kubernetes")) spec.kind = ClusterKind::kubernetes;
  else r.errors << QStringLiteral("kind: must be ssh, slurm or kubernetes (got '%1')").arg(kind);
  spec.known_hosts = r.text(root, "known_hosts", {}, {});
  spec.ssh_config = r.text(root, "ssh_config", {}, {});
  spec.master_port = r.number(root, "master_port", {}, spec.kind == ClusterKind::slurm ? 0 : spec.master_port);
  spec.nproc_per_node = r.number(root, "nproc_per_node", {}, spec.nproc_per_node);
  spec.connect_timeout_s = r.number(root, "connect_timeout_s", {}, spec.connect_timeout_s);
  if (const YAML::Node hosts = root["hosts"]) read_hosts(r, hosts, &spec.hosts);
  if (const YAML::Node s = root["slurm"]; r.section(s, QStringLiteral("slurm"), "login_host:, nodes:, ..."))
    read_slurm_settings(r, s, &spec.slurm);
  if (const YAML::Node k = root["kubernetes"]; r.section(k, QStringLiteral("kubernetes"), "image:, nodes:, ..."))
    read_kubernetes_settings(r, k, &spec.kubernetes);
  if (r.errors.isEmpty()) r.errors = spec.validate();
  if (!r.errors.isEmpty()) {
    if (error) *error = source + QStringLiteral(": ") + r.errors.join(QStringLiteral("\n") + source + QStringLiteral(": "));
    return std::nullopt;
  }
  return spec;
}

std::optional<ClusterSpec> parse_cluster_yaml(const QString& text, const QString& source, QString* error) {
  // The reader checks every shape it reads; this is the net under it, so a
  // shape it does not foresee is still an error and never an abort.
  try {
    return read_cluster_yaml(text, source, error);
  } catch (const YAML::Exception& ex) {
    const QString where = ex.mark.is_null() ? source : QStringLiteral("%1:%2").arg(source).arg(ex.mark.line + 1);
    if (error) *error = QStringLiteral("%1: a value of an unexpected shape (%2)").arg(where, QString::fromStdString(ex.msg));
    return std::nullopt;
  }
}

std::optional<ClusterSpec> load_cluster_file(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = QStringLiteral("%1: cannot read the cluster file (%2)").arg(path, file.errorString());
    return std::nullopt;
  }
  return parse_cluster_yaml(QString::fromUtf8(file.readAll()), path, error);
}

QString cluster_to_yaml(const ClusterSpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << spec.name.toStdString();
  out << YAML::Key << "kind" << YAML::Value << to_string(spec.kind).toStdString();
  emit_text(out, "known_hosts", spec.known_hosts);
  emit_text(out, "ssh_config", spec.ssh_config);
  emit_number(out, "master_port", spec.master_port, -1);
  emit_number(out, "nproc_per_node", spec.nproc_per_node, 1);
  emit_number(out, "connect_timeout_s", spec.connect_timeout_s, 10);
  if (!spec.hosts.isEmpty()) {
    out << YAML::Key << "hosts" << YAML::Value << YAML::BeginSeq;
    for (const ClusterHost& h : spec.hosts) {
      out << YAML::BeginMap;
      emit_text(out, "name", h.name);
      emit_text(out, "address", h.address);
      emit_number(out, "port", h.port, 0);
      emit_text(out, "user", h.user);
      emit_text(out, "key_file", h.key_file);
      emit_text(out, "work_dir", h.work_dir);
      emit_text(out, "engine", h.engine, QStringLiteral("medsynth-engine"));
      emit_text(out, "cluster_address", h.cluster_address);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (spec.kind == ClusterKind::slurm) {
    const SlurmSettings& s = spec.slurm;
    out << YAML::Key << "slurm" << YAML::Value << YAML::BeginMap;
    emit_text(out, "login_host", s.login_host);
    emit_number(out, "nodes", s.nodes, -1);
    emit_number(out, "tasks_per_node", s.tasks_per_node, -1);
    emit_number(out, "gpus_per_node", s.gpus_per_node, 0);
    emit_number(out, "cpus_per_task", s.cpus_per_task, 0);
    emit_text(out, "partition", s.partition);
    emit_text(out, "account", s.account);
    emit_text(out, "time", s.time_limit, {});
    emit_number(out, "signal_seconds", s.signal_seconds, 90);
    if (!s.requeue) out << YAML::Key << "requeue" << YAML::Value << false;
    emit_text(out, "work_dir", s.work_dir);
    emit_text(out, "engine", s.engine, QStringLiteral("medsynth-engine"));
    if (!s.extra_directives.isEmpty()) {
      out << YAML::Key << "extra_directives" << YAML::Value << YAML::BeginSeq;
      for (const QString& d : s.extra_directives) out << d.toStdString();
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  if (spec.kind == ClusterKind::kubernetes) {
    const KubernetesSettings& k = spec.kubernetes;
    out << YAML::Key << "kubernetes" << YAML::Value << YAML::BeginMap;
    emit_text(out, "image", k.image);
    emit_text(out, "namespace", k.name_space, {});
    emit_number(out, "nodes", k.nodes, -1);
    emit_number(out, "gpus_per_node", k.gpus_per_node, 0);
    emit_text(out, "data_claim", k.data_claim);
    emit_text(out, "runs_claim", k.runs_claim);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return QString::fromUtf8(out.c_str()) + QLatin1Char('\n');
}

}  // namespace medsynth::app
