// Shell commands for detached engines on nodes (see remote_node.hpp).
#include "app/cluster/remote_node.hpp"

#include "app/cluster/command_shell.hpp"

namespace medsynth::app {
namespace {
const QByteArray k_separator = QByteArrayLiteral("\n#--medsynth-job-file-follows--\n");
QString q(const QString& word) { return shell_quote(word); }
}  // namespace

QString node_wrapper_script(const NodeCommand& c) {
  QStringList command{q(c.engine)};
  for (const QString& a : c.arguments) command << q(a);
  const QString d = q(c.node_dir);
  return QStringLiteral(
             "#!/bin/sh\n"
             "# medsynth launch %1: the engine of this node, detached from the console.\n"
             "echo $$ > %2/wrapper.pid\n"
             "cd %3 || { echo 127 > %2/exit; exit 127; }\n"
             "%4 > %2/out 2> %2/err < /dev/null &\n"
             "engine=$!\n"
             "echo $engine > %2/pid.tmp && mv %2/pid.tmp %2/pid\n"
             "wait $engine\n"
             "code=$?\n"
             "echo $code > %2/exit.tmp && mv %2/exit.tmp %2/exit\n")
      .arg(c.launch_id, d, q(c.work_dir), command.join(QLatin1Char(' ')));
}

QString upload_command(const QString& dir, const QString& first_name, const QByteArray& first, const QString& second_name,
                       const QByteArray& second, QByteArray* input) {
  *input = first + k_separator + second;
  // awk splits stdin at the separator line: the first file before, the second after.
  return QStringLiteral("mkdir -p %1 && cd %1 && awk -v sep=%2 -v a=%3 -v b=%4 'BEGIN{f=a} $0==sep{f=b; next} {print > f}' "
                        "&& touch %4 && chmod 755 %3")
      .arg(q(dir), q(QString::fromUtf8(k_separator.trimmed())), q(first_name), q(second_name));
}

bool read_new_bytes(CommandShell& shell, const QString& path, qint64* offset, qint64 max_bytes,
                    const std::function<void(const QByteArray&)>& sink, bool* lost) {
  for (int round = 0; round < 64; ++round) {
    const ShellResult r = shell.run(read_command(path, *offset, max_bytes), {}, 30000);
    if (r.connection_lost || !r.error.isEmpty()) {
      if (lost) *lost = true;
      return false;
    }
    if (!r.out.isEmpty()) {
      *offset += r.out.size();
      sink(r.out);
    }
    if (r.out.size() < max_bytes) return true;
  }
  return true;
}

QString start_command(const QString& node_dir) {
  const QString d = q(node_dir);
  return QStringLiteral(
             "cd %1 && rm -f pid exit && (setsid nohup sh %1/run.sh > wrapper.log 2>&1 < /dev/null &) && "
             "i=0; while [ ! -s pid ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
             "if [ -s pid ]; then cat pid; else echo 'the node wrapper did not start' >&2; cat wrapper.log >&2; exit 1; fi")
      .arg(d);
}

QString status_command(const QString& node_dir) {
  const QString d = q(node_dir);
  // Between the engine's death and the wrapper's `mv exit.tmp exit` there is a
  // moment with neither a live engine nor an exit file: a live wrapper means
  // "still running" so the code is read on the next poll instead of "gone".
  return QStringLiteral(
             "cd %1 2>/dev/null || { echo gone; exit 0; }; "
             "if [ -s exit ]; then echo \"exit $(cat exit)\"; "
             "elif [ -s pid ] && kill -0 \"$(cat pid)\" 2>/dev/null; then echo \"running $(cat pid)\"; "
             "elif [ -s wrapper.pid ] && kill -0 \"$(cat wrapper.pid)\" 2>/dev/null; then echo \"running $(cat pid)\"; "
             "elif [ -s exit ]; then echo \"exit $(cat exit)\"; "
             "else echo gone; fi")
      .arg(d);
}

QString read_command(const QString& path, qint64 offset, qint64 max_bytes) {
  return QStringLiteral("[ -f %1 ] && tail -c +%2 %1 | head -c %3 || true").arg(q(path)).arg(offset + 1).arg(max_bytes);
}

QString terminate_command(const QString& node_dir) {
  const QString d = q(node_dir);
  return QStringLiteral("cd %1 && [ -s pid ] && [ ! -s exit ] && kill -TERM \"$(cat pid)\" 2>/dev/null; true").arg(d);
}

QString kill_command(const QString& node_dir) {
  const QString d = q(node_dir);
  // The wrapper leads its own session: -PGID reaches it and the engine
  // launcher; the workers (own process group) die with their launcher
  // (PR_SET_PDEATHSIG), and pkill -s catches anything left in the session.
  return QStringLiteral(
             "cd %1 || exit 0; w=$(cat wrapper.pid 2>/dev/null); p=$(cat pid 2>/dev/null); "
             "[ -n \"$p\" ] && kill -KILL \"$p\" 2>/dev/null; "
             "[ -n \"$w\" ] && { kill -KILL -- \"-$w\" 2>/dev/null; pkill -KILL -s \"$w\" 2>/dev/null; }; true")
      .arg(d);
}

NodeStatus parse_node_status(const QByteArray& output) {
  NodeStatus s;
  const QList<QByteArray> words = output.trimmed().split(' ');
  if (words.value(0) == "exit") {
    s.state = NodeStatus::State::exited;
    bool ok = false;
    s.exit_code = words.value(1).toInt(&ok);
    if (!ok) s.exit_code = -1;
  } else if (words.value(0) == "running") {
    s.state = NodeStatus::State::running;
    s.pid = words.value(1).toLongLong();
  } else if (words.value(0) == "gone") {
    s.state = NodeStatus::State::gone;
  }
  return s;
}

}  // namespace medsynth::app
