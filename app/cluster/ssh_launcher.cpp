// SshLauncher: one detached engine launcher per host, followed by NodeLinks.
#include "app/cluster/ssh_launcher.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include "app/cluster/remote_node.hpp"
#include "app/cluster/ssh_config_file.hpp"
#include "app/cluster/ssh_shell.hpp"

namespace medsynth::app {
namespace {
constexpr int k_stderr_tail_lines = 20;

// Where the other nodes find node 0: its cluster_address, else what its
// address is in the ssh config (an alias is only a name on this machine).
QString master_address(const ClusterSpec& c) {
  const ClusterHost& first = c.hosts.front();
  return first.cluster_address.isEmpty() ? resolve_ssh_host_name(first.address, c.ssh_config_path()) : first.cluster_address;
}
}

QStringList SshLauncherOptions::validate() const {
  QStringList e = cluster.validate();
  if (cluster.kind != ClusterKind::ssh)
    e << QStringLiteral("cluster %1: kind is %2; the SSH launcher runs kind: ssh").arg(cluster.name, to_string(cluster.kind));
  if (poll_interval_ms < 10) e << QStringLiteral("poll_interval_ms: must be >= 10 (got %1)").arg(poll_interval_ms);
  if (stop_grace_ms < 0) e << QStringLiteral("stop_grace_ms: must be >= 0 (got %1)").arg(stop_grace_ms);
  return e;
}

SshLauncher::SshLauncher(SshLauncherOptions options, QObject* parent) : Launcher(parent), options_(std::move(options)) {
  if (options_.records_dir.isEmpty()) options_.records_dir = default_launch_records_dir();
}

SshLauncher::~SshLauncher() { shut_down_threads(); }

void SshLauncher::shut_down_threads() {
  for (NodeLink* link : links_) link->abandon();
  for (QThread* t : threads_) {
    t->quit();
    t->wait();
    delete t;
  }
  threads_.clear();
  qDeleteAll(links_);
  links_.clear();
}

QStringList SshLauncher::engine_arguments(const LaunchRequest& r, int rank, const QString& node_dir) const {
  const ClusterSpec& c = options_.cluster;
  const ClusterHost& host = c.hosts[rank];
  QStringList a{QStringLiteral("launch"),
                QStringLiteral("--nnodes"), QString::number(c.hosts.size()),
                QStringLiteral("--node-rank"), QString::number(rank),
                QStringLiteral("--master-addr"), master_address(c),
                QStringLiteral("--master-port"), QString::number(c.master_port),
                QStringLiteral("--nproc-per-node"), QString::number(r.nproc_per_node),
                QStringLiteral("--rendezvous-id"), record_.launch_id};
  if (r.max_restarts > 0) a << QStringLiteral("--max-restarts") << QString::number(r.max_restarts);
  a << QStringLiteral("train") << node_dir + QStringLiteral("/job.yaml") << r.overrides << QStringLiteral("--json") << QStringLiteral("--no-progress");
  // Runs live on the cluster (request.runs_dir is a folder of the console's machine).
  a << QStringLiteral("--runs-dir") << host.work_dir + QStringLiteral("/runs");
  if (!r.resume_run_dir.isEmpty()) a << QStringLiteral("--resume") << r.resume_run_dir;
  if (!r.data_path.isEmpty()) a << QStringLiteral("--data") << r.data_path;
  return a;
}

void SshLauncher::start(const LaunchRequest& request) {
  if (running_) {
    emit failed_to_start(QStringLiteral("a run is already going on %1").arg(options_.cluster.name));
    return;
  }
  QByteArray job_text;
  LaunchRequest on_nodes = request;
  on_nodes.paths_on_nodes = true;
  if (!prepare_start(on_nodes, options_.validate(), &job_text)) return;
  record_ = {};
  record_.launch_id = new_launch_id();
  record_.cluster = options_.cluster;
  record_.job_name = QFileInfo(request.job_file).completeBaseName();
  record_.started = QDateTime::currentDateTime();
  for (const ClusterHost& h : options_.cluster.hosts)
    record_.node_dirs << QStringLiteral("%1/.medsynth/launches/%2/node%3").arg(h.work_dir, record_.launch_id).arg(record_.node_dirs.size());
  QString error;
  if (!save_launch_record(record_, options_.records_dir, &error))
    emit stderr_text(QStringLiteral("medsynth console: %1 (reattaching after a restart will not be possible)").arg(error));
  begin(true, request, job_text);
}

void SshLauncher::reattach(const LaunchRecord& record) {
  if (running_) {
    emit failed_to_start(QStringLiteral("a run is already going on %1").arg(options_.cluster.name));
    return;
  }
  model_.clear();
  options_.cluster = record.cluster;
  record_ = record;
  if (const QStringList e = options_.validate(); !e.isEmpty() || record.node_dirs.size() != record.cluster.hosts.size()) {
    fail_start(e.isEmpty() ? QStringLiteral("launch record %1: %2 node directories for %3 hosts")
                               .arg(record.launch_id).arg(record.node_dirs.size()).arg(record.cluster.hosts.size())
                         : e.join(QLatin1Char('\n')));
    return;
  }
  begin(false, {}, {});
}

void SshLauncher::begin(bool start_engines, const LaunchRequest& request, const QByteArray& job_text) {
  shut_down_threads();
  running_ = true;
  stop_requested_ = false;
  started_emitted_ = false;
  run_dir_emitted_ = false;
  ended_count_ = 0;
  node0_exit_ = -1;
  reconnects_ = 0;
  failures_.clear();
  stderr_tail_.clear();
  begin_event_stream();
  model_.set_status(RunStatus::pending);
  const ClusterSpec& c = options_.cluster;
  nodes_.clear();
  err_lines_.clear();
  for (int k = 0; k < c.hosts.size(); ++k) {
    nodes_ << NodeState{c.hosts[k].label(), QStringLiteral("waiting"), c.hosts[k].endpoint(), -1};
    err_lines_ << LineSplitter();
  }
  emit nodes_changed();

  for (int k = 0; k < c.hosts.size(); ++k) {
    NodeLinkOptions o;
    o.index = k;
    o.name = c.hosts[k].label();
    o.node_dir = record_.node_dirs[k];
    o.start = start_engines;
    o.follow_out = k == 0;
    o.poll_interval_ms = options_.poll_interval_ms;
    o.stop_grace_ms = options_.stop_grace_ms;
    o.reconnect_give_up_s = options_.reconnect_give_up_s;
    const ClusterHost host = c.hosts[k];
    const SshConnectOptions ssh = SshConnectOptions::for_cluster(c, options_.delegate);
    o.connect = [host, ssh](QString* error) -> std::unique_ptr<CommandShell> { return SshShell::connect(host, ssh, error); };
    if (start_engines) {
      NodeCommand command;
      command.node_dir = o.node_dir;
      command.work_dir = host.work_dir;
      command.engine = host.engine;
      command.arguments = engine_arguments(request, k, o.node_dir);
      command.launch_id = record_.launch_id;
      o.script = node_wrapper_script(command).toUtf8();
      o.job_text = job_text;
    }
    auto* link = new NodeLink(o);
    auto* thread = new QThread;
    thread->setObjectName(QStringLiteral("node-%1").arg(k));
    link->moveToThread(thread);
    connect(thread, &QThread::started, link, &NodeLink::run);
    connect(link, &NodeLink::ended, thread, &QThread::quit);
    connect(link, &NodeLink::out_read, this, &SshLauncher::on_out);
    connect(link, &NodeLink::err_read, this, &SshLauncher::on_err);
    connect(link, &NodeLink::ended, this, &SshLauncher::on_ended);
    connect(link, &NodeLink::reconnected, this, [this](int index, qint64 offset) {
      ++reconnects_;
      emit stderr_text(QStringLiteral("medsynth console: [%1] reconnected; events continue at byte %2").arg(nodes_.value(index).name).arg(offset));
    });
    connect(link, &NodeLink::state_changed, this, [this](int index, const QString& state, const QString& detail) {
      set_node_state(index, state, detail);
      if (state == QStringLiteral("running") || state == QStringLiteral("reattached")) {
        if (model_.status() == RunStatus::pending) model_.set_status(RunStatus::running);
        if (!std::exchange(started_emitted_, true)) emit started();
      }
    });
    links_ << link;
    threads_ << thread;
  }
  for (QThread* t : threads_) t->start();
}

void SshLauncher::stop() {
  if (!running_ || stop_requested_) return;
  stop_requested_ = true;
  for (NodeLink* link : links_) link->stop();
}

void SshLauncher::drop_connection(int index) {
  if (index >= 0 && index < links_.size()) links_[index]->drop_connection();
}

void SshLauncher::on_out(int index, const QByteArray& chunk) {
  if (index != 0) return;
  feed_event_stream(chunk);
  if (!model_.run_dir().isEmpty() && !std::exchange(run_dir_emitted_, true)) emit run_dir_known(model_.run_dir());
}

void SshLauncher::on_err(int index, const QByteArray& chunk) {
  model_.begin_batch();
  for (const QString& line : err_lines_[index].feed(chunk)) {
    stderr_tail_ << QStringLiteral("[%1] %2").arg(nodes_.value(index).name, line);
    if (stderr_tail_.size() > k_stderr_tail_lines) stderr_tail_.removeFirst();
    relay_log_line(nodes_.value(index).name, line);
  }
  model_.end_batch();
}

void SshLauncher::on_ended(int index, int exit_code, const QString& reason) {
  if (!reason.isEmpty()) {
    failures_ << QStringLiteral("[%1] %2").arg(nodes_.value(index).name, reason);
    set_node_state(index, QStringLiteral("failed"), reason, exit_code);
    emit stderr_text(failures_.back());
    // A node that could not start (or was lost) leaves the others waiting at
    // the rendezvous: stop them now instead of at the join timeout.
    // (Not stop_requested_: that is the user's, and makes the run "stopped".)
    for (NodeLink* link : links_) link->stop();
  } else {
    set_node_state(index, QStringLiteral("exited"), QStringLiteral("exit code %1").arg(exit_code), exit_code);
  }
  if (index == 0) node0_exit_ = exit_code;
  if (++ended_count_ < links_.size()) return;
  running_ = false;
  end_event_stream();
  QString tail = stderr_tail_.join(QLatin1Char('\n'));
  if (!failures_.isEmpty()) tail = failures_.join(QLatin1Char('\n')) + (tail.isEmpty() ? QString() : QStringLiteral("\n") + tail);
  const bool crashed = node0_exit_ < 0;
  // A node that failed makes the run failed, even if node 0 then stopped cleanly.
  if (!failures_.isEmpty() && !stop_requested_ && !model_.is_terminal()) model_.set_status(RunStatus::failed, tail);
  const RunStatus status = conclude_run(node0_exit_, crashed, stop_requested_, tail);
  if (!started_emitted_ && status == RunStatus::failed) emit failed_to_start(model_.failure_message());
  emit finished(node0_exit_, status);
}

}  // namespace medsynth::app
