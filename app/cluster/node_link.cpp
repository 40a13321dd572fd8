// NodeLink: the poll loop of one node (see node_link.hpp).
#include "app/cluster/node_link.hpp"

#include <QElapsedTimer>
#include <QThread>

#include "app/cluster/remote_node.hpp"

namespace medsynth::app {

QStringList NodeLinkOptions::validate() const {
  QStringList e;
  if (!connect) e << QStringLiteral("connect: missing");
  if (node_dir.isEmpty() || !node_dir.startsWith(QLatin1Char('/'))) e << QStringLiteral("node_dir: must be an absolute path (got '%1')").arg(node_dir);
  if (poll_interval_ms < 10) e << QStringLiteral("poll_interval_ms: must be >= 10 (got %1)").arg(poll_interval_ms);
  if (max_chunk_bytes < 1024) e << QStringLiteral("max_chunk_bytes: must be >= 1024");
  return e;
}

NodeLink::NodeLink(NodeLinkOptions options) : o_(std::move(options)) {}

void NodeLink::sleep_ms(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms && !abandoned_ && !wake_.exchange(false)) QThread::msleep(std::min<qint64>(20, ms - t.elapsed() + 1));
}

bool NodeLink::ensure_connected(bool first) {
  if (shell_) return true;
  QElapsedTimer down;
  down.start();
  int backoff_ms = 250;
  for (int attempt = 1; !abandoned_; ++attempt) {
    emit state_changed(o_.index, first ? QStringLiteral("connecting") : QStringLiteral("reconnecting"),
                       first ? QString() : QStringLiteral("attempt %1").arg(attempt));
    QString error;
    shell_ = o_.connect(&error);
    if (shell_) return true;
    // A first connection that fails (host key, auth, no route) ends the node
    // at once with the reason; a lost link is retried until give-up.
    if (first) {
      emit ended(o_.index, -1, error);
      return false;
    }
    if (down.elapsed() > o_.reconnect_give_up_s * 1000LL) {
      emit ended(o_.index, -1, QStringLiteral("lost: no connection for %1 s (%2); the engine may still be running there")
                                   .arg(o_.reconnect_give_up_s).arg(error));
      return false;
    }
    emit state_changed(o_.index, QStringLiteral("disconnected"), error);
    sleep_ms(backoff_ms);
    backoff_ms = std::min(backoff_ms * 2, 5000);
  }
  return false;
}

bool NodeLink::drain(const QString& file, qint64* offset, bool is_out, bool* lost) {
  return read_new_bytes(*shell_, o_.node_dir + QLatin1Char('/') + file, offset, o_.max_chunk_bytes, [&](const QByteArray& chunk) {
    if (is_out) emit out_read(o_.index, chunk);
    else emit err_read(o_.index, chunk);
  }, lost);
}

// Uploads and starts the engine (o_.start), or reattaches to the one
// running. False: it could not be started, and ended() said why.
bool NodeLink::start_or_reattach() {
  if (o_.start) {
    emit state_changed(o_.index, QStringLiteral("starting"), shell_->where());
    QByteArray input;
    ShellResult up = shell_->run(upload_command(o_.node_dir, o_.script, o_.job_text, &input), input, 30000);
    if (!up.ok()) {
      emit ended(o_.index, -1, QStringLiteral("%1: cannot write %2: %3").arg(shell_->where(), o_.node_dir, up.problem()));
      return false;
    }
    const ShellResult started = shell_->run(start_command(o_.node_dir), {}, 30000);
    if (!started.ok()) {
      emit ended(o_.index, -1, QStringLiteral("%1: cannot start the engine: %2").arg(shell_->where(), started.problem()));
      return false;
    }
    emit state_changed(o_.index, QStringLiteral("running"), QStringLiteral("pid %1").arg(QString::fromUtf8(started.out.trimmed())));
  } else {
    emit state_changed(o_.index, QStringLiteral("reattached"), shell_->where());
  }
  return true;
}

// Drops the link if a test asked, reconnects a lost one and says where the
// reading goes on (*was_lost: lost since the last poll). False: the link
// could not be brought back, and ensure_connected() said so.
bool NodeLink::reconnect_if_lost(bool* was_lost) {
  if (drop_requested_.exchange(false)) shell_.reset();
  if (!shell_) {
    *was_lost = true;
    if (!ensure_connected(false)) return false;
  }
  if (*was_lost) {
    *was_lost = false;
    emit reconnected(o_.index, out_offset_);
    emit state_changed(o_.index, QStringLiteral("reattached"),
                       QStringLiteral("continuing at byte %1").arg(out_offset_));
  }
  return true;
}

void NodeLink::run() {
  if (const QStringList problems = o_.validate(); !problems.isEmpty()) {
    emit ended(o_.index, -1, problems.join(QStringLiteral("; ")));
    return;
  }
  if (!ensure_connected(true)) return;
  if (!start_or_reattach()) return;

  bool term_sent = false;
  bool kill_sent = false;
  QElapsedTimer since_term;
  bool was_lost = false;
  while (!abandoned_) {
    if (!reconnect_if_lost(&was_lost)) return;
    bool lost = false;
    if ((stop_requested_ || kill_requested_) && !term_sent) {
      lost = shell_->run(terminate_command(o_.node_dir), {}, 15000).connection_lost;
      if (!lost) {
        term_sent = true;
        since_term.start();
        emit state_changed(o_.index, QStringLiteral("stopping"), QStringLiteral("SIGTERM sent; checkpoint, then exit"));
      }
    }
    if (!lost && term_sent && !kill_sent && (kill_requested_ || since_term.elapsed() > o_.stop_grace_ms)) {
      lost = shell_->run(kill_command(o_.node_dir), {}, 15000).connection_lost;
      if (!lost) {
        kill_sent = true;
        emit state_changed(o_.index, QStringLiteral("stopping"), QStringLiteral("did not stop in time: SIGKILL sent"));
      }
    }
    // Status first, then the files: an engine that exited has written all it
    // will, so reading after an "exit" status catches every last byte.
    NodeStatus status;
    if (!lost) {
      const ShellResult st = shell_->run(status_command(o_.node_dir), {}, 15000);
      if (st.connection_lost || !st.error.isEmpty()) lost = true;
      else status = parse_node_status(st.out);
    }
    if (!lost && o_.follow_out) drain(QStringLiteral("out"), &out_offset_, true, &lost);
    if (!lost) drain(QStringLiteral("err"), &err_offset_, false, &lost);
    if (lost) {
      shell_.reset();
      continue;
    }
    if (status.state == NodeStatus::State::exited) {
      emit state_changed(o_.index, QStringLiteral("exited"), QStringLiteral("exit code %1").arg(status.exit_code));
      emit ended(o_.index, status.exit_code, {});
      return;
    }
    if (status.state == NodeStatus::State::gone) {
      emit state_changed(o_.index, QStringLiteral("gone"), QString());
      emit ended(o_.index, -1, QStringLiteral("the engine on %1 is gone without an exit code (killed, or its node rebooted)").arg(o_.name));
      return;
    }
    sleep_ms(o_.poll_interval_ms);
  }
}

}  // namespace medsynth::app
