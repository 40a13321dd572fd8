// TerminalAuthDelegate: questions on /dev/tty (stdin may be a pipe or a file).
#include <termios.h>
#include <unistd.h>

#include <QMutex>
#include <cstdio>
#include <cstring>

#include "app/headless/terminal_auth_delegate.hpp"

namespace medsynth::app {
namespace {
QMutex g_terminal;  // node threads ask one at a time

std::optional<QString> ask(const QString& question, bool echo) {
  FILE* tty = std::fopen("/dev/tty", "r+");
  if (!tty) return std::nullopt;
  std::fputs(qPrintable(question), tty);
  std::fflush(tty);
  termios saved{};
  const int fd = fileno(tty);
  const bool have_termios = tcgetattr(fd, &saved) == 0;
  if (!echo && have_termios) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(fd, TCSAFLUSH, &quiet);
  }
  char line[1024] = {};
  const bool got = std::fgets(line, sizeof line, tty) != nullptr;
  if (!echo && have_termios) {
    tcsetattr(fd, TCSAFLUSH, &saved);
    std::fputs("\n", tty);
  }
  std::fclose(tty);
  QString answer = got ? QString::fromUtf8(line).chopped(std::strchr(line, '\n') ? 1 : 0) : QString();
  std::memset(line, 0, sizeof line);
  if (!got) return std::nullopt;
  return answer;
}
}  // namespace

bool TerminalAuthDelegate::trust_unknown_host(const QString& host, const QString& key_type, const QString& fingerprint) {
  QMutexLocker lock(&g_terminal);
  if (trust_) {
    std::fprintf(stderr, "medsynth: trusting new host %s (%s key %s) and adding it to known_hosts\n", qPrintable(host),
                 qPrintable(key_type), qPrintable(fingerprint));
    return true;
  }
  const auto answer = ask(QStringLiteral("The authenticity of host %1 can't be established.\n%2 key fingerprint is %3.\n"
                                         "Trust it and add it to known_hosts (yes/no)? ")
                              .arg(host, key_type, fingerprint),
                          true);
  return answer && answer->trimmed().toLower() == QStringLiteral("yes");
}

std::optional<QString> TerminalAuthDelegate::key_passphrase(const QString& key_file) {
  QMutexLocker lock(&g_terminal);
  return ask(QStringLiteral("Enter passphrase for key '%1': ").arg(key_file), false);
}

}  // namespace medsynth::app
