// Where a launcher runs its commands: this machine (LocalShell) or a host over
// SSH (SshShell). Blocking calls with a timeout, made from a launcher's worker
// thread, never from the GUI thread. One object per thread.
#pragma once

#include <QByteArray>
#include <QString>

namespace medsynth::app {

struct ShellResult {
  int exit_code = -1;
  QByteArray out;
  QByteArray err;
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

// Quotes a word for a POSIX shell: 'it'\''s'.
QString shell_quote(const QString& word);

}  // namespace medsynth::app
