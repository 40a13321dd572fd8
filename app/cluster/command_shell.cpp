// LocalShell (QProcess, blocking on a worker thread) and shell quoting.
#include "app/cluster/command_shell.hpp"

#include <QDeadlineTimer>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

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

void append_capped(QByteArray& to, const char* data, qsizetype size, qsizetype cap, qint64* discarded) {
  const qsizetype room = std::max<qsizetype>(0, cap - to.size());
  const qsizetype kept = std::min(room, size);
  to.append(data, kept);
  *discarded += size - kept;
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
  // Drain as it arrives: QProcess would otherwise buffer all of it.
  auto drain = [&] {
    const QByteArray out = p.readAllStandardOutput();
    append_capped(r.out, out.constData(), out.size(), k_max_shell_stdout_bytes, &r.discarded_bytes);
    const QByteArray err = p.readAllStandardError();
    append_capped(r.err, err.constData(), err.size(), k_max_shell_stderr_bytes, &r.discarded_bytes);
  };
  const QDeadlineTimer deadline(timeout_ms);
  while (p.state() != QProcess::NotRunning) {
    if (deadline.hasExpired()) {
      p.kill();
      p.waitForFinished(2000);
      r.error = QStringLiteral("'%1' did not finish within %2 s").arg(command.left(60)).arg(timeout_ms / 1000.0);
      return r;
    }
    p.waitForReadyRead(50);
    drain();
  }
  drain();
  r.exit_code = p.exitStatus() == QProcess::CrashExit ? -1 : p.exitCode();
  if (p.exitStatus() == QProcess::CrashExit) r.error = QStringLiteral("/bin/sh crashed");
  return r;
}

}  // namespace medsynth::app
