// Reading the ssh config through libssh; ProxyJump hops read back from the
// ProxyCommand libssh 0.10 makes of them.
#include "app/cluster/ssh_config_file.hpp"

#include <libssh/libssh.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace medsynth::app {

QString SshJumpHop::text() const {
  const QString who = user.isEmpty() ? QString() : user + QLatin1Char('@');
  if (port == 0) return who + host;
  const QString h = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
  return QStringLiteral("%1%2:%3").arg(who, h).arg(port);
}

QStringList ssh_config_files(const QString& explicit_file) {
  if (!explicit_file.isEmpty()) return {explicit_file};
  QStringList files;
  for (const QString& f : {QDir::homePath() + QStringLiteral("/.ssh/config"), QStringLiteral("/etc/ssh/ssh_config")})
    if (QFileInfo::exists(f)) files << f;
  return files;
}

QString apply_ssh_config(ssh_session session, const QString& explicit_file) {
  // %d (the default IdentityFiles) follows $HOME like every other path of
  // medsynth; libssh would take the passwd entry's home.
  const QByteArray ssh_dir = (QDir::homePath() + QStringLiteral("/.ssh")).toLocal8Bit();
  ssh_options_set(session, SSH_OPTIONS_SSH_DIR, ssh_dir.constData());
  for (const QString& file : ssh_config_files(explicit_file)) {
    // libssh skips a file it cannot open without a word; a file the user
    // named (or one that exists but is unreadable) must not be skipped so.
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("ssh config %1: cannot read it: %2").arg(file, f.errorString());
    f.close();
    if (ssh_options_parse_config(session, QFile::encodeName(file).constData()) != 0) {
      // libssh 0.10 stops at the line but mostly keeps the reason to its log;
      // the lines it can refuse are these.
      const QString why = QString::fromUtf8(ssh_get_error(session));
      return QStringLiteral("ssh config %1: libssh refused a line of it: %2")
          .arg(file, why.isEmpty() ? QStringLiteral("a malformed ProxyJump, Match or Include line") : why);
    }
  }
  return {};
}

std::optional<SshJumpHop> parse_jump_hop(const QString& text, QString* error) {
  auto bad = [&](const QString& why) -> std::optional<SshJumpHop> {
    if (error) *error = QStringLiteral("ProxyJump entry '%1': %2").arg(text, why);
    return std::nullopt;
  };
  SshJumpHop hop;
  QString rest = text;
  if (const qsizetype at = rest.indexOf(QLatin1Char('@')); at >= 0) {
    hop.user = rest.left(at);
    rest = rest.mid(at + 1);
    if (hop.user.isEmpty()) return bad(QStringLiteral("empty user name"));
  }
  QString port;
  if (rest.startsWith(QLatin1Char('['))) {  // [v6 address]:port
    const qsizetype close = rest.indexOf(QLatin1Char(']'));
    if (close < 0) return bad(QStringLiteral("'[' without ']'"));
    hop.host = rest.mid(1, close - 1);
    const QString after = rest.mid(close + 1);
    if (!after.isEmpty() && !after.startsWith(QLatin1Char(':'))) return bad(QStringLiteral("text after ']'"));
    port = after.mid(1);
    if (after == QStringLiteral(":")) return bad(QStringLiteral("empty port"));
  } else if (rest.count(QLatin1Char(':')) == 1) {
    hop.host = rest.section(QLatin1Char(':'), 0, 0);
    port = rest.section(QLatin1Char(':'), 1);
    if (port.isEmpty()) return bad(QStringLiteral("empty port"));
  } else {
    hop.host = rest;  // a name, or a bare IPv6 address
  }
  if (hop.host.isEmpty()) return bad(QStringLiteral("no host"));
  if (!port.isEmpty()) {
    bool ok = false;
    hop.port = port.toInt(&ok);
    if (!ok || hop.port < 1 || hop.port > 65535) return bad(QStringLiteral("port must be 1..65535 (got '%1')").arg(port));
  }
  return hop;
}

std::optional<QList<SshJumpHop>> jump_hops_of_proxy_command(const QString& command, QString* error) {
  // The exact form config.c of libssh 0.10 writes (snprintf in
  // ssh_config_parse_proxy_jump); any other text is a user's ProxyCommand.
  static const QRegularExpression form(
      QStringLiteral(R"(^ssh(?: -l (\S+))?(?: -p (\S+))?(?: -J (\S+))? -W '\[%h\]:%p' (\S+)$)"));
  const QRegularExpressionMatch m = form.match(command);
  if (!m.hasMatch()) return std::nullopt;
  QList<SshJumpHop> hops;
  SshJumpHop first;
  first.user = m.captured(1);
  first.host = m.captured(4);
  if (m.hasCaptured(2)) {
    bool ok = false;
    first.port = m.captured(2).toInt(&ok);
    if (!ok || first.port < 1 || first.port > 65535) {
      if (error) *error = QStringLiteral("ProxyJump: port must be 1..65535 (got '%1')").arg(m.captured(2));
      return std::nullopt;
    }
  }
  hops << first;
  // libssh passes the rest of the list on with -J, as written: crossed after the first.
  if (m.hasCaptured(3)) {
    for (const QString& entry : m.captured(3).split(QLatin1Char(','))) {
      const auto hop = parse_jump_hop(entry, error);
      if (!hop) return std::nullopt;
      hops << *hop;
    }
  }
  return hops;
}

QString resolve_ssh_host_name(const QString& address, const QString& explicit_file) {
  ssh_session s = ssh_new();
  if (!s) return address;
  const bool no = false;
  ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
  ssh_options_set(s, SSH_OPTIONS_HOST, address.toUtf8().constData());
  QString name = address;
  char* host = nullptr;
  if (apply_ssh_config(s, explicit_file).isEmpty() && ssh_options_get(s, SSH_OPTIONS_HOST, &host) == SSH_OK && host) {
    name = QString::fromUtf8(host);
    ssh_string_free_char(host);
  }
  ssh_free(s);
  return name;
}

}  // namespace medsynth::app
