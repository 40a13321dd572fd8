// LocalShell (QProcess, blocking on a worker thread) and shell quoting.
#include "app/cluster/command_shell.hpp"

#include <QProcess>
#include <QRegularExpression>

namespace medsynth::app {

QString ShellResult::problem() const {
  if (!error.isEmpty()) return error;
  const QString first = QString::fromUtf8(err).trimmed().section(QLatin1Char('\n'), 0, 0);
  if (!first.isEmpty()) return first;
  return QStringLiteral("exit status %1").arg(exit_code);
}

QString shell_quote(const QString& word) {
  static const QRegularExpression plain(QStringLiteral(R"(^[A-Za-z0-9_./:=@%+,-]+$)"));
  if (plain.match(word).hasMatch()) return word;
  QString q = word;
  q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + q + QLatin1Char('\'');
}

ShellResult LocalShell::run(const QString& command, const QByteArray& input, int timeout_ms) {
  ShellResult r;
  QProcess p;
  p.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
  if (!p.waitForStarted(5000)) {
    r.error = QStringLiteral("could not start /bin/sh: %1").arg(p.errorString());
    return r;
  }
  if (!input.isEmpty()) p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished(2000);
    r.error = QStringLiteral("'%1' did not finish within %2 s").arg(command.left(60)).arg(timeout_ms / 1000.0);
    return r;
  }
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  r.exit_code = p.exitStatus() == QProcess::CrashExit ? -1 : p.exitCode();
  if (p.exitStatus() == QProcess::CrashExit) r.error = QStringLiteral("/bin/sh crashed");
  return r;
}

}  // namespace medsynth::app
