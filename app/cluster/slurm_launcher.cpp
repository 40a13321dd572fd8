// SlurmLauncher: submit, follow (state, events, output), scancel.
#include "app/cluster/slurm_launcher.hpp"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <optional>
#include <set>

#include "app/cluster/remote_node.hpp"
#include "app/cluster/sbatch_script.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "contract/run_directory.hpp"

namespace medsynth::app {
namespace {

const std::set<QString> k_final_states{QStringLiteral("COMPLETED"), QStringLiteral("FAILED"),        QStringLiteral("CANCELLED"),
                                       QStringLiteral("TIMEOUT"),   QStringLiteral("NODE_FAIL"),     QStringLiteral("OUT_OF_MEMORY"),
                                       QStringLiteral("BOOT_FAIL"), QStringLiteral("DEADLINE"),      QStringLiteral("PREEMPTED"),
                                       QStringLiteral("GONE")};

struct JobState {
  QString state;   // RUNNING, PENDING, COMPLETED, ... GONE (no longer known to SLURM)
  QString detail;  // reason or node list
  int exit_code = -1;
};

// The job's state from squeue, or from scontrol once it has left the queue.
// A busy slurmctld answers with a timeout and no state: that is "unknown"
// (empty state, polled again), never "gone" — only an explicit "Invalid job
// id" from scontrol says the job is no longer known.
JobState query_state(CommandShell& shell, const QString& id, bool* lost) {
  JobState s;
  const ShellResult q = shell.run(QStringLiteral("squeue -h -j %1 -o '%T|%R' 2>/dev/null; true").arg(shell_quote(id)), {}, 30000);
  if (q.connection_lost || !q.error.isEmpty()) {
    *lost = true;
    return s;
  }
  const QString line = QString::fromUtf8(q.out).trimmed().section(QLatin1Char('\n'), 0, 0);
  if (!line.isEmpty()) {
    s.state = line.section(QLatin1Char('|'), 0, 0);
    s.detail = line.section(QLatin1Char('|'), 1);
  }
  if (s.state.isEmpty() || k_final_states.count(s.state)) {
    // Left the queue (or finishing): scontrol still knows it for MinJobAge.
    const ShellResult c = shell.run(QStringLiteral("scontrol show job %1 -o 2>&1; true").arg(shell_quote(id)), {}, 30000);
    if (c.connection_lost || !c.error.isEmpty()) {
      *lost = true;
      return s;
    }
    const QString text = QString::fromUtf8(c.out);
    static const QRegularExpression state_re(QStringLiteral(R"(JobState=(\w+))")), exit_re(QStringLiteral(R"(ExitCode=(\d+):(\d+))"));
    if (const auto m = state_re.match(text); m.hasMatch()) s.state = m.captured(1);
    else if (s.state.isEmpty() && text.contains(QStringLiteral("Invalid job id"), Qt::CaseInsensitive)) s.state = QStringLiteral("GONE");
    if (const auto m = exit_re.match(text); m.hasMatch()) s.exit_code = m.captured(1).toInt() ? m.captured(1).toInt() : m.captured(2).toInt() ? 128 + m.captured(2).toInt() : 0;
  }
  return s;
}

// A final state must be seen on two polls in a row (or be followed by
// "gone"): a job being requeued passes through states that look final
// for a moment, and its output is read once more after the second look.
// The job's exit code once it has ended; *final_seen: the previous poll's
// final state (the first look), kept from poll to poll.
std::optional<int> exit_code_once_final(JobState st, JobState* final_seen) {
  if (!k_final_states.count(st.state)) {
    *final_seen = {};
  } else if (final_seen->state.isEmpty() || (st.state != final_seen->state && st.state != QStringLiteral("GONE"))) {
    *final_seen = st;  // first look
  } else {
    if (st.state == QStringLiteral("GONE")) st = *final_seen;
    int code = st.exit_code;
    if (st.state == QStringLiteral("COMPLETED"))
      code = 0;
    else if (st.state == QStringLiteral("CANCELLED") && code <= 0)
      code = 143;
    else if (code <= 0)
      code = 1;
    return code;
  }
  return std::nullopt;
}

}  // namespace

QStringList SlurmLauncherOptions::validate() const {
  QStringList e = cluster.validate();
  if (cluster.kind != ClusterKind::slurm)
    e << QStringLiteral("cluster %1: kind is %2; the SLURM launcher runs kind: slurm").arg(cluster.name, to_string(cluster.kind));
  if (poll_interval_ms < 10) e << QStringLiteral("poll_interval_ms: must be >= 10 (got %1)").arg(poll_interval_ms);
  return e;
}

SlurmFollower::SlurmFollower(SlurmLauncherOptions options, LaunchRecord record, QByteArray script, QByteArray job_text)
    : o_(std::move(options)), record_(std::move(record)), script_(std::move(script)), job_text_(std::move(job_text)) {}

std::unique_ptr<CommandShell> SlurmFollower::connect(QString* error) {
  const ClusterSpec& c = o_.cluster;
  if (c.slurm.login_host.isEmpty()) return std::make_unique<LocalShell>();
  return SshShell::connect(*c.find_host(c.slurm.login_host), SshConnectOptions::for_cluster(c, o_.delegate), error);
}

void SlurmFollower::run() {
  QString error;
  std::unique_ptr<CommandShell> shell = connect(&error);
  if (!shell) {
    emit ended(-1, error);
    return;
  }
  const QString dir = record_.node_dirs.value(0);
  QString id = record_.slurm_job_id;
  if (!script_.isEmpty() && !submit(*shell, dir, &id)) return;
  const QString output = QStringLiteral("%1/slurm-%2.out").arg(dir, id);
  QString run_dir;
  qint64 events_offset = 0, output_offset = 0;
  QString last_state;
  JobState final_seen;  // a final state seen on the previous poll
  bool cancel_sent = false;
  QElapsedTimer down;
  while (!abandoned_) {
    bool lost = false;
    if (!shell) {
      if (!reconnect(&shell, &down, &error, id)) return;
      if (!shell) continue;
    }
    if (cancel_requested_ && !cancel_sent) send_scancel(*shell, id, &cancel_sent, &lost);
    JobState st;
    if (!lost) st = query_state(*shell, id, &lost);
    if (!lost && run_dir.isEmpty()) look_for_run_dir(*shell, dir, &run_dir, &lost);
    if (!lost && !run_dir.isEmpty())
      read_new_bytes(*shell, run_dir + QStringLiteral("/events.jsonl"), &events_offset, 1 << 20, [this](const QByteArray& b) { emit events_read(b); }, &lost);
    if (!lost) read_new_bytes(*shell, output, &output_offset, 1 << 20, [this](const QByteArray& b) { emit output_read(b); }, &lost);
    if (lost) {
      shell.reset();
      continue;
    }
    if (st.state.isEmpty()) {  // slurmctld did not answer: ask again
      QThread::msleep(o_.poll_interval_ms);
      continue;
    }
    if (st.state != last_state) {
      last_state = st.state;
      emit job_state(st.state, st.detail);
    }
    if (const std::optional<int> code = exit_code_once_final(st, &final_seen)) {
      emit ended(*code, {});
      return;
    }
    QThread::msleep(o_.poll_interval_ms);
  }
}

// Writes the batch script and the job file into dir and submits them; *id:
// the job's. False: ended() said why.
bool SlurmFollower::submit(CommandShell& shell, const QString& dir, QString* id) {
  QByteArray input;
  const ShellResult up = shell.run(
      upload_command(dir, QStringLiteral("job.sbatch"), script_, QLatin1String(k_job_file), job_text_, &input), input);
  if (!up.ok()) {
    emit ended(-1, QStringLiteral("%1: cannot write %2: %3").arg(shell.where(), dir, up.problem()));
    return false;
  }
  const ShellResult sub = shell.run(QStringLiteral("cd %1 && sbatch --parsable job.sbatch").arg(shell_quote(dir)));
  *id = QString::fromUtf8(sub.out).trimmed().section(QLatin1Char(';'), 0, 0);
  static const QRegularExpression digits(QStringLiteral("^\\d+$"));
  if (!sub.ok() || !digits.match(*id).hasMatch()) {
    emit ended(-1, QStringLiteral("sbatch on %1 refused the job: %2").arg(shell.where(), sub.problem()));
    return false;
  }
  emit submitted(*id);
  return true;
}

// One try to reach the login host again (*down: since when it is gone). On
// failure says "disconnected" and waits 2 s, *shell left null for the next
// try. False: gone for 10 minutes, and ended() said so.
bool SlurmFollower::reconnect(std::unique_ptr<CommandShell>* shell, QElapsedTimer* down, QString* error,
                              const QString& id) {
  if (!down->isValid()) down->start();
  *shell = connect(error);
  if (!*shell) {
    emit job_state(QStringLiteral("disconnected"), *error);
    if (down->elapsed() > 600000) {
      emit ended(-1, QStringLiteral("lost the login host for 10 minutes: %1 (job %2 may still run)").arg(*error, id));
      return false;
    }
    QThread::msleep(2000);
    return true;
  }
  down->invalidate();
  return true;
}

void SlurmFollower::send_scancel(CommandShell& shell, const QString& id, bool* cancel_sent, bool* lost) {
  const ShellResult c = shell.run(QStringLiteral("scancel %1").arg(shell_quote(id)));
  *lost = c.connection_lost;
  if (c.ok())
    *cancel_sent = true;
  else if (!*lost)
    emit output_read(QStringLiteral("medsynth console: scancel %1: %2\n").arg(id, c.problem()).toUtf8());
}

// The run directory the engine made under dir, once there is one.
void SlurmFollower::look_for_run_dir(CommandShell& shell, const QString& dir, QString* run_dir, bool* lost) {
  const ShellResult ls =
      shell.run(QStringLiteral("ls -1d %1/runs/*/ 2>/dev/null | head -n 1; true").arg(shell_quote(dir)));
  *lost = ls.connection_lost;
  QString found = QString::fromUtf8(ls.out).trimmed();
  if (found.endsWith(QLatin1Char('/'))) found.chop(1);
  if (!found.isEmpty()) {
    *run_dir = found;
    emit run_dir_found(*run_dir);
  }
}

SlurmLauncher::SlurmLauncher(SlurmLauncherOptions options, QObject* parent) : Launcher(parent), options_(std::move(options)) {
  if (options_.records_dir.isEmpty()) options_.records_dir = default_launch_records_dir();
}

SlurmLauncher::~SlurmLauncher() { release_follower(); }

void SlurmLauncher::release_follower() {
  if (follower_) follower_->abandon();
  if (thread_) {
    thread_->quit();
    thread_->wait();
    delete thread_;
  }
  delete follower_;
  thread_ = nullptr;
  follower_ = nullptr;
}

void SlurmLauncher::start(const LaunchRequest& request) {
  if (running_) {
    emit failed_to_start(QStringLiteral("a run is already going on %1").arg(options_.cluster.name));
    return;
  }
  QByteArray job_text;
  LaunchRequest on_nodes = request;
  on_nodes.paths_on_nodes = true;
  if (!prepare_start(on_nodes, options_.validate(), &job_text)) return;
  const ClusterSpec& c = options_.cluster;
  const QString work_dir = c.slurm.login_host.isEmpty() ? c.slurm.work_dir : c.find_host(c.slurm.login_host)->work_dir;
  record_ = {};
  record_.launch_id = new_launch_id();
  record_.cluster = c;
  record_.job_name = QFileInfo(request.job_file).completeBaseName();
  record_.started = QDateTime::currentDateTime();
  record_.node_dirs << QStringLiteral("%1/.medsynth/launches/%2").arg(work_dir, record_.launch_id);
  SbatchJob job{record_.node_dirs[0], QStringLiteral("medsynth-") + record_.job_name, record_.launch_id};
  begin(sbatch_script(c, request, job).toUtf8(), job_text);
}

void SlurmLauncher::reattach(const LaunchRecord& record) {
  options_.cluster = record.cluster;
  record_ = record;
  model_.clear();
  begin({}, {});
}

void SlurmLauncher::begin(const QByteArray& script, const QByteArray& job_text) {
  running_ = true;
  stop_requested_ = false;
  run_dir_emitted_ = false;
  out_lines_.clear();
  stderr_tail_.clear();
  begin_event_stream();
  model_.set_status(RunStatus::pending);
  nodes_ = {NodeState{QStringLiteral("job"), QStringLiteral("submitting"), options_.cluster.name, -1}};
  emit nodes_changed();
  release_follower();
  follower_ = new SlurmFollower(options_, record_, script, job_text);
  thread_ = new QThread;
  thread_->setObjectName(QStringLiteral("slurm"));
  follower_->moveToThread(thread_);
  connect(thread_, &QThread::started, follower_, &SlurmFollower::run);
  connect(follower_, &SlurmFollower::ended, thread_, &QThread::quit);
  connect(follower_, &SlurmFollower::submitted, this, [this](const QString& id) {
    record_.slurm_job_id = id;
    nodes_[0].name = QStringLiteral("job %1").arg(id);
    QString error;
    if (!save_launch_record(record_, options_.records_dir, &error)) emit stderr_text(QStringLiteral("medsynth console: ") + error);
    emit stderr_text(QStringLiteral("medsynth console: submitted SLURM job %1 (%2)").arg(id, launch_dir()));
  });
  connect(follower_, &SlurmFollower::job_state, this, [this](const QString& state, const QString& detail) {
    set_node_state(0, state.toLower(), detail);
    if (state == QStringLiteral("RUNNING")) {
      if (model_.status() == RunStatus::pending) model_.set_status(RunStatus::running);
      emit started();
    }
  });
  connect(follower_, &SlurmFollower::run_dir_found, this, [this](const QString& dir) {
    if (model_.run_dir().isEmpty()) model_.set_run_dir(dir);
    if (!std::exchange(run_dir_emitted_, true)) emit run_dir_known(dir);
  });
  connect(follower_, &SlurmFollower::events_read, this, [this](const QByteArray& chunk) { feed_event_stream(chunk); });
  connect(follower_, &SlurmFollower::output_read, this, [this](const QByteArray& chunk) {
    model_.begin_batch();
    for (const QString& line : out_lines_.feed(chunk)) {
      stderr_tail_ << line;
      if (stderr_tail_.size() > 20) stderr_tail_.removeFirst();
      relay_log_line({}, line);
    }
    model_.end_batch();
  });
  connect(follower_, &SlurmFollower::ended, this, &SlurmLauncher::on_ended);
  thread_->start();
}

void SlurmLauncher::stop() {
  if (!running_ || stop_requested_) return;
  stop_requested_ = true;
  if (follower_) follower_->cancel();
}

void SlurmLauncher::on_ended(int exit_code, const QString& reason) {
  running_ = false;
  end_event_stream();
  if (!reason.isEmpty()) {
    set_node_state(0, QStringLiteral("failed"), reason, exit_code);
    if (!model_.is_terminal()) model_.set_status(RunStatus::failed, reason);
    emit failed_to_start(reason);
  } else {
    set_node_state(0, nodes_[0].state, QStringLiteral("exit code %1").arg(exit_code), exit_code);
  }
  const RunStatus status = conclude_run(exit_code, false, stop_requested_, stderr_tail_.join(QLatin1Char('\n')));
  emit finished(exit_code, status);
}

}  // namespace medsynth::app
