// The shell side of a detached engine on a node. A launch lives in a node
// directory (…/.medsynth/launches/ID/nodeK/) holding:
//   run.sh   the wrapper: starts the engine, records its pid, waits, writes exit
//   job.yaml the job file, uploaded
//   out      the engine's stdout (node 0: the event stream, --json)
//   err      its stderr (launcher and rank logs' warnings)
//   pid      the engine launcher's pid; wrapper.pid the wrapper's (session leader)
//   exit     the exit code, written once the engine has ended
// The wrapper runs in its own session (setsid, nohup, stdin from /dev/null), so
// a dropped SSH link or a closed console does not touch it; a reader comes
// back any time and continues each file from a byte offset. Stopping is
// explicit: SIGTERM to the engine (it checkpoints and stops its workers), then
// SIGKILL to the whole session after the grace period — closing a channel
// without a pty would leave the process running (PLATFORM-NOTES.md).
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

#include "contract/run_directory.hpp"

namespace medsynth::app {

struct NodeCommand {
  QString node_dir;      // absolute, on the node
  QString work_dir;      // the engine's working directory
  QString engine;        // program
  QStringList arguments; // engine arguments
  QString launch_id;     // written into run.sh (finds stray processes: pgrep -f ID)
};

QString node_wrapper_script(const NodeCommand& command);
// Creates dir and writes two files there from stdin (a tar-free upload: the
// first, a separator line the files cannot contain, the second); the first
// is made executable.
QString upload_command(const QString& dir, const QString& first_name, const QByteArray& first, const QString& second_name,
                       const QByteArray& second, QByteArray* input);
inline QString upload_command(const QString& node_dir, const QByteArray& script, const QByteArray& job_text, QByteArray* input) {
  return upload_command(node_dir, QStringLiteral("run.sh"), script, QLatin1String(k_job_file), job_text, input);
}
// Starts run.sh detached and prints the engine's pid once it is known.
QString start_command(const QString& node_dir);
// Prints "exit N", "running PID" or "gone" (no exit file and no process: killed
// with the node, or never started).
QString status_command(const QString& node_dir);
// Up to max_bytes of FILE from byte offset (0-based).
QString read_command(const QString& path, qint64 offset, qint64 max_bytes);
QString terminate_command(const QString& node_dir);  // SIGTERM to the engine
QString kill_command(const QString& node_dir);       // SIGKILL to its whole session

class CommandShell;
// Reads the bytes of `path` past *offset into sink until caught up (a chunk
// shorter than max_bytes), advancing *offset. False when the command failed
// (*lost: the link is gone); bytes already passed to sink stay counted.
bool read_new_bytes(CommandShell& shell, const QString& path, qint64* offset, qint64 max_bytes,
                    const std::function<void(const QByteArray&)>& sink, bool* lost);

struct NodeStatus {
  enum class State { running, exited, gone, unknown } state = State::unknown;
  int exit_code = -1;
  qint64 pid = 0;
};
NodeStatus parse_node_status(const QByteArray& output);

}  // namespace medsynth::app
