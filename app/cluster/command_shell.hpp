// Where a launcher runs its commands: this machine (LocalShell) or a host over
// SSH (SshShell). Blocking calls with a timeout, made from a launcher's worker
// thread, never from the GUI thread. One object per thread.
#pragma once

#include <QByteArray>
#include <QString>

namespace medsynth::app {

// What one command may leave in memory. Readers of remote files ask for
// bounded chunks (read_new_bytes: 1 MiB), so only a runaway or hostile command
// reaches these; the rest of its output is read and dropped, not stored.
inline constexpr qsizetype k_max_shell_stdout_bytes = qsizetype{64} << 20;
inline constexpr qsizetype k_max_shell_stderr_bytes = qsizetype{1} << 20;

struct ShellResult {
  int exit_code = -1;
  QByteArray out;                // at most k_max_shell_stdout_bytes
  QByteArray err;                // at most k_max_shell_stderr_bytes
  qint64 discarded_bytes = 0;    // output beyond those caps
  QString error;                 // could not run it (or timed out); exit_code is then -1
  bool connection_lost = false;  // the link is gone: reconnect before the next command
  bool ok() const { return error.isEmpty() && exit_code == 0; }
  // error, else the first line of stderr, else "exit status N".
  QString problem() const;
};

class CommandShell {
 public:
  virtual ~CommandShell() = default;
  // Runs `command` with /bin/sh (remote: the login shell, given a POSIX sh
  // script), writes `input` to its stdin and closes it.
  virtual ShellResult run(const QString& command, const QByteArray& input = {}, int timeout_ms = 30000) = 0;
  virtual QString where() const = 0;  // "this machine", "root@127.0.0.2:22022"
};

class LocalShell : public CommandShell {
 public:
  ShellResult run(const QString& command, const QByteArray& input = {}, int timeout_ms = 30000) override;
  QString where() const override { return QStringLiteral("this machine"); }
};

// Appends up to `cap` bytes in all to `to`; counts the rest in *discarded.
void append_capped(QByteArray& to, const char* data, qsizetype size, qsizetype cap, qint64* discarded);

// Quotes a word for a POSIX shell: 'it'\''s'.
QString shell_quote(const QString& word);

}  // namespace medsynth::app
