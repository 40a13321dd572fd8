// ssh_config_file without a server: the ProxyJump hops read back from what
// the installed libssh makes of a real config file (so a libssh that changes
// its ProxyCommand form fails here, not at a site), "[user@]host[:port]"
// entries, HostName resolution, and the errors SshShell::connect gives before
// it reaches any network: a missing config file, a bad ProxyJump, a loop.
#include <libssh/libssh.h>

#include <QTemporaryDir>
#include <QTest>

#include "app/cluster/ssh_config_file.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

namespace {
// The ProxyCommand libssh stores for `alias` after reading `config`.
QString libssh_proxy_command(const QString& config, const QString& alias) {
  ssh_session s = ssh_new();
  const bool no = false;
  ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no);
  ssh_options_set(s, SSH_OPTIONS_HOST, alias.toUtf8().constData());
  QString command;
  char* value = nullptr;
  if (apply_ssh_config(s, config).isEmpty() && ssh_options_get(s, SSH_OPTIONS_PROXYCOMMAND, &value) == SSH_OK) {
    command = QString::fromUtf8(value);
    ssh_string_free_char(value);
  }
  ssh_free(s);
  return command;
}

QStringList texts(const QList<SshJumpHop>& hops) {
  QStringList t;
  for (const SshJumpHop& h : hops) t << h.text();
  return t;
}
}  // namespace

class SshConfigFileTest : public QObject {
  Q_OBJECT

  QTemporaryDir temp_;

  QString write_config(const QString& name, const QByteArray& text) {
    const QString path = temp_.filePath(name);
    write_all(path, text);
    return path;
  }
  SshConnectOptions options(const QString& config) const {
    SshConnectOptions o;
    o.known_hosts = temp_.filePath(QStringLiteral("known_hosts"));
    o.ssh_config = config;
    o.timeout_s = 2;
    return o;
  }
  // The error of connecting to `address` with `config` (printed, so the log shows the wording).
  QString connect_error(const QString& config, const QString& address) const {
    ClusterHost host;
    host.address = address;
    QString error;
    if (SshShell::connect(host, options(config), &error)) return QStringLiteral("(connected)");
    qInfo().noquote() << error;
    return error;
  }

 private slots:
  void initTestCase() { qputenv("HOME", temp_.filePath(QStringLiteral("home")).toUtf8()); }

  void proxyJumpHopsComeBackFromLibsshInTheOrderTheyAreCrossed() {
    const QString config = write_config(QStringLiteral("jumps.conf"),
                                        "Host one\n  ProxyJump me@login.site:2200\n"
                                        "Host chain\n  ProxyJump first,you@second:2201,[::1]:2202\n"
                                        "Host plain\n  HostName 10.0.0.9\n"
                                        "Host own\n  ProxyCommand nc -X connect -x proxy:3128 %h %p\n");
    QString error;
    const auto one = jump_hops_of_proxy_command(libssh_proxy_command(config, QStringLiteral("one")), &error);
    QVERIFY2(one, qPrintable(libssh_proxy_command(config, QStringLiteral("one")) + error));
    QCOMPARE(texts(*one), QStringList{QStringLiteral("me@login.site:2200")});
    QCOMPARE(one->first().port, 2200);
    const auto chain = jump_hops_of_proxy_command(libssh_proxy_command(config, QStringLiteral("chain")), &error);
    QVERIFY2(chain, qPrintable(libssh_proxy_command(config, QStringLiteral("chain")) + error));
    QCOMPARE(texts(*chain), (QStringList{QStringLiteral("first"), QStringLiteral("you@second:2201"), QStringLiteral("[::1]:2202")}));
    QCOMPARE(chain->last().host, QStringLiteral("::1"));
    QVERIFY(libssh_proxy_command(config, QStringLiteral("plain")).isEmpty());
    error.clear();
    QVERIFY(!jump_hops_of_proxy_command(libssh_proxy_command(config, QStringLiteral("own")), &error));
    QVERIFY2(error.isEmpty(), qPrintable(error));  // a ProxyCommand of the user's: libssh runs it
    QCOMPARE(resolve_ssh_host_name(QStringLiteral("plain"), config), QStringLiteral("10.0.0.9"));
    QCOMPARE(resolve_ssh_host_name(QStringLiteral("not-in-it"), config), QStringLiteral("not-in-it"));
  }

  void jumpEntriesAreCheckedPiecewise() {
    QString error;
    auto hop = parse_jump_hop(QStringLiteral("u@h"), &error);
    QVERIFY(hop);
    QCOMPARE(hop->user, QStringLiteral("u"));
    QCOMPARE(hop->port, 0);
    QVERIFY(!parse_jump_hop(QStringLiteral("h:99999"), &error));
    QVERIFY2(error.contains(QStringLiteral("ProxyJump entry 'h:99999': port must be 1..65535")), qPrintable(error));
    QVERIFY(!parse_jump_hop(QStringLiteral("@h"), &error));
    QVERIFY(!parse_jump_hop(QStringLiteral("u@:22"), &error));
    QVERIFY(!parse_jump_hop(QStringLiteral("[::1"), &error));
  }

  void aMissingConfigFileIsNamedBeforeAnyConnection() {
    const QString missing = temp_.filePath(QStringLiteral("no/such/ssh_config"));
    const QString error = connect_error(missing, QStringLiteral("gpu1"));
    QCOMPARE(error, QStringLiteral("gpu1: ssh config %1: cannot read it: No such file or directory").arg(missing));
  }

  void aConfigLineLibsshRefusesIsNamed() {
    const QString config = write_config(QStringLiteral("bad.conf"), "Host gpu1\n  ProxyJump user@\n");
    const QString error = connect_error(config, QStringLiteral("gpu1"));
    QVERIFY2(error.startsWith(QStringLiteral("gpu1: ssh config %1: libssh refused a line of it").arg(config)), qPrintable(error));
  }

  void aProxyJumpLoopIsRefusedWithoutConnecting() {
    const QString config = write_config(QStringLiteral("loop.conf"), "Host ping\n  ProxyJump pong\nHost pong\n  ProxyJump ping\n");
    const QString error = connect_error(config, QStringLiteral("ping"));
    QVERIFY2(error.endsWith(QStringLiteral(": ProxyJump loops back to ping (ping -> pong -> ping); check the ssh config")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("@ping:22: jump host ")), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(SshConfigFileTest)
#include "ssh_config_file_test.moc"
