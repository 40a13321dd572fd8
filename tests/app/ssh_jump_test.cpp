// SshShell with the user's ssh config, against the real sshd's of
// tests/integration/ssh/with_sshd_pair.sh (label ssh): a Host alias gives
// HostName, Port, User and IdentityFile (from an explicit file and from
// ~/.ssh/config), the cluster's own fields win over it, and ProxyJump crosses
// the "jump" sshd on 127.0.0.4 — one hop, and a chain — which its DEBUG log
// proves: it records each forward it opened. Errors name the jump host and
// what went wrong (unreachable, key refused, unknown host key).
//
// $HOME is a fresh folder and ssh-agent is out of reach, so the only key
// offered is the one the config names.
#include <QTemporaryDir>
#include <QTest>

#include "app/cluster/ssh_config_file.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

class SshJumpTest : public QObject {
  Q_OBJECT

  QString dir_;
  QString port_;
  QString user_;
  QTemporaryDir temp_;

  // One Host block; `extra` adds lines ("ProxyJump jumpbox").
  QString block(const QString& alias, const QString& address, const QString& key = QStringLiteral("id_ed25519"),
                const QString& extra = {}) const {
    return QStringLiteral("Host %1\n  HostName %2\n  Port %3\n  User %4\n  IdentityFile %5/%6\n%7")
        .arg(alias, address, port_, user_, dir_, key, extra.isEmpty() ? QString() : QStringLiteral("  %1\n").arg(extra));
  }
  QString write_config(const QString& name, const QString& text) {
    const QString path = temp_.filePath(name);
    write_all(path, text.toUtf8());
    return path;
  }
  SshConnectOptions options(const QString& config, const QString& known = {}) const {
    SshConnectOptions o;
    o.known_hosts = known.isEmpty() ? dir_ + QStringLiteral("/known_hosts") : known;
    o.ssh_config = config;
    o.timeout_s = 5;
    return o;
  }
  static ClusterHost alias(const QString& name) {
    ClusterHost h;
    h.address = name;
    return h;
  }
  // The forwards the jump sshd has opened so far, one line each.
  QStringList jump_forwards() const {
    QStringList lines;
    for (const QByteArray& line : read_all(dir_ + QStringLiteral("/jump/sshd.log")).split('\n'))
      if (line.contains("server_request_direct_tcpip")) lines << QString::fromUtf8(line);
    return lines;
  }
  // $SSH_CONNECTION's server address and port, as seen on the far end.
  static QString server_side(SshShell& shell) {
    const ShellResult r = shell.run(QStringLiteral("echo $SSH_CONNECTION"));
    const QStringList f = QString::fromUtf8(r.out).split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return f.size() == 4 ? f[2] + QLatin1Char(':') + f[3].trimmed() : QStringLiteral("(%1 %2)").arg(QString::fromUtf8(r.out), r.problem());
  }

 private slots:
  void initTestCase() {
    dir_ = qEnvironmentVariable("MEDSYNTH_TEST_SSH_DIR");
    if (dir_.isEmpty()) QSKIP("needs the sshd pair: run through tests/integration/ssh/with_sshd_pair.sh");
    if (!QFile::exists(dir_ + QStringLiteral("/jump/sshd.pid"))) QSKIP("the sshd pair has no jump sshd (an older sshd_pair.sh)");
    port_ = QString::fromUtf8(read_all(dir_ + QStringLiteral("/env"))).trimmed().section(QLatin1Char('='), 1);
    user_ = qEnvironmentVariable("USER", QStringLiteral("root"));
    if (user_.isEmpty()) user_ = QStringLiteral("root");
    QVERIFY(!port_.isEmpty());
    qputenv("HOME", temp_.filePath(QStringLiteral("home")).toUtf8());
    qunsetenv("SSH_AUTH_SOCK");
  }

  void anAliasOfAnExplicitConfigFileGivesHostPortUserAndKey() {
    const QString config = write_config(QStringLiteral("alias.conf"), block(QStringLiteral("node-b-alias"), QStringLiteral("127.0.0.3")));
    QString error;
    auto shell = SshShell::connect(alias(QStringLiteral("node-b-alias")), options(config), &error);
    QVERIFY2(shell, qPrintable(error));
    QCOMPARE(shell->where(), QStringLiteral("node-b-alias (%1@127.0.0.3:%2)").arg(user_, port_));
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.3:%1").arg(port_));
    QCOMPARE(resolve_ssh_host_name(QStringLiteral("node-b-alias"), config), QStringLiteral("127.0.0.3"));
  }

  void theDefaultConfigIsHomesDotSshConfig() {
    write_all(temp_.filePath(QStringLiteral("home/.ssh/config")), block(QStringLiteral("node-a-alias"), QStringLiteral("127.0.0.2")).toUtf8());
    QString error;
    auto shell = SshShell::connect(alias(QStringLiteral("node-a-alias")), options({}), &error);
    QVERIFY2(shell, qPrintable(error));
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.2:%1").arg(port_));
    QFile::remove(temp_.filePath(QStringLiteral("home/.ssh/config")));
  }

  void theClustersOwnFieldsWinOverTheConfig() {
    // The config points at a closed port, a user that does not exist and a
    // key nobody accepts; the cluster's host entry says otherwise.
    const QString config = write_config(QStringLiteral("wrong.conf"),
                                        QStringLiteral("Host misled\n  HostName 127.0.0.3\n  Port 1\n  User no-such-user-here\n"
                                                       "  IdentityFile %1/wrong_ed25519\n").arg(dir_));
    ClusterHost host = alias(QStringLiteral("misled"));
    QString error;
    QVERIFY(!SshShell::connect(host, options(config), &error));
    qInfo().noquote() << error;
    QVERIFY2(error.contains(QStringLiteral("misled (no-such-user-here@127.0.0.3:1)")), qPrintable(error));
    host.port = port_.toInt();
    host.user = user_;
    host.key_file = dir_ + QStringLiteral("/id_ed25519");
    auto shell = SshShell::connect(host, options(config), &error);
    QVERIFY2(shell, qPrintable(error));
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.3:%1").arg(port_));
  }

  void aConfigKeysPassphraseIsAskedOfTheDelegate() {
    // The key is only named by the config: libssh asks for its passphrase through our callback.
    const QString config = write_config(QStringLiteral("secret.conf"),
                                        block(QStringLiteral("locked"), QStringLiteral("127.0.0.2"), QStringLiteral("secret_ed25519")));
    struct Typed : AuthDelegate {
      QString typed;
      int asked = 0;
      bool trust_unknown_host(const QString&, const QString&, const QString&) override { return false; }
      std::optional<QString> key_passphrase(const QString&) override {
        ++asked;
        return typed;
      }
    } typed;
    typed.typed = QString::fromUtf8(read_all(dir_ + QStringLiteral("/secret.passphrase")));
    SshConnectOptions o = options(config);
    QString error;
    QVERIFY(!SshShell::connect(alias(QStringLiteral("locked")), o, &error));  // no delegate: the key cannot be read
    o.delegate = &typed;
    auto shell = SshShell::connect(alias(QStringLiteral("locked")), o, &error);
    QVERIFY2(shell, qPrintable(error));
    QVERIFY(typed.asked >= 1);
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.2:%1").arg(port_));
  }

  void proxyJumpCrossesTheJumpHost() {
    const QString config = write_config(
        QStringLiteral("jump.conf"),
        block(QStringLiteral("jumpbox"), QStringLiteral("127.0.0.4")) +
            block(QStringLiteral("behind"), QStringLiteral("127.0.0.3"), QStringLiteral("id_ed25519"), QStringLiteral("ProxyJump jumpbox")));
    const qsizetype before = jump_forwards().size();
    QString error;
    auto shell = SshShell::connect(alias(QStringLiteral("behind")), options(config), &error);
    QVERIFY2(shell, qPrintable(error));
    QCOMPARE(shell->where(), QStringLiteral("behind (%1@127.0.0.3:%2) via jumpbox").arg(user_, port_));
    // The jump sshd logged the forward before it answered the channel open.
    const QStringList forwards = jump_forwards().mid(before);
    QCOMPARE(forwards.size(), 1);
    QVERIFY2(forwards[0].contains(QStringLiteral("target 127.0.0.3 port %1").arg(port_)), qPrintable(forwards[0]));
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.3:%1").arg(port_));
    // Several commands over the one tunnel, with more than a socket buffer of output.
    const ShellResult big = shell->run(QStringLiteral("head -c 3000000 /dev/zero | tr '\\0' x"), {}, 30000);
    QVERIFY2(big.ok(), qPrintable(big.problem()));
    QCOMPARE(big.out.size(), 3000000);
    QCOMPARE(jump_forwards().size(), before + 1);
  }

  void aProxyJumpListIsCrossedInOrder() {
    // jumpbox, then node-a, then node-b: the jump sshd forwards only to node-a.
    const QString config = write_config(
        QStringLiteral("chain.conf"),
        block(QStringLiteral("jumpbox"), QStringLiteral("127.0.0.4")) + block(QStringLiteral("node-a-alias"), QStringLiteral("127.0.0.2")) +
            block(QStringLiteral("deep"), QStringLiteral("127.0.0.3"), QStringLiteral("id_ed25519"), QStringLiteral("ProxyJump jumpbox,node-a-alias")));
    const qsizetype before = jump_forwards().size();
    QString error;
    auto shell = SshShell::connect(alias(QStringLiteral("deep")), options(config), &error);
    QVERIFY2(shell, qPrintable(error));
    const QStringList forwards = jump_forwards().mid(before);
    QCOMPARE(forwards.size(), 1);
    QVERIFY2(forwards[0].contains(QStringLiteral("target 127.0.0.2 port %1").arg(port_)), qPrintable(forwards[0]));
    QCOMPARE(server_side(*shell), QStringLiteral("127.0.0.3:%1").arg(port_));
  }

  void anUnreachableJumpHostIsNamed() {
    const QString config = write_config(QStringLiteral("dead.conf"),
                                        QStringLiteral("Host deadjump\n  HostName 127.0.0.4\n  Port 1\n  User %1\n").arg(user_) +
                                            block(QStringLiteral("behind"), QStringLiteral("127.0.0.3"), QStringLiteral("id_ed25519"),
                                                  QStringLiteral("ProxyJump deadjump")));
    QString error;
    QVERIFY(!SshShell::connect(alias(QStringLiteral("behind")), options(config), &error));
    qInfo().noquote() << error;
    QVERIFY2(error.startsWith(QStringLiteral("behind (%1@127.0.0.3:%2): jump host deadjump (%1@127.0.0.4:1): cannot connect").arg(user_, port_)),
             qPrintable(error));
  }

  void aJumpHostRefusingTheKeyIsNamed() {
    const QString config = write_config(
        QStringLiteral("refused.conf"),
        block(QStringLiteral("jumpbox"), QStringLiteral("127.0.0.4"), QStringLiteral("wrong_ed25519")) +
            block(QStringLiteral("behind"), QStringLiteral("127.0.0.3"), QStringLiteral("id_ed25519"), QStringLiteral("ProxyJump jumpbox")));
    QString error;
    QVERIFY(!SshShell::connect(alias(QStringLiteral("behind")), options(config), &error));
    qInfo().noquote() << error;
    QVERIFY2(error.contains(QStringLiteral(": jump host jumpbox (%1@127.0.0.4:%2): authentication failed").arg(user_, port_)), qPrintable(error));
  }

  void aJumpHostsKeyIsCheckedAgainstTheClustersKnownHosts() {
    // known_hosts without the jump's line: the jump host is as unknown as any.
    QByteArray lines;
    for (const QByteArray& line : read_all(dir_ + QStringLiteral("/known_hosts")).split('\n'))
      if (!line.startsWith("[127.0.0.4]")) lines += line + '\n';
    const QString known = temp_.filePath(QStringLiteral("known_without_jump"));
    write_all(known, lines);
    const QString config = write_config(
        QStringLiteral("unknown.conf"),
        block(QStringLiteral("jumpbox"), QStringLiteral("127.0.0.4")) +
            block(QStringLiteral("behind"), QStringLiteral("127.0.0.3"), QStringLiteral("id_ed25519"), QStringLiteral("ProxyJump jumpbox")));
    QString error;
    QVERIFY(!SshShell::connect(alias(QStringLiteral("behind")), options(config, known), &error));
    qInfo().noquote() << error;
    const QString fp = QString::fromUtf8(read_all(dir_ + QStringLiteral("/jump.fp"))).trimmed();
    QVERIFY2(error.contains(QStringLiteral("jump host jumpbox (%1@127.0.0.4:%2): unknown host key").arg(user_, port_)), qPrintable(error));
    QVERIFY2(error.contains(fp), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(SshJumpTest)
#include "ssh_jump_test.moc"
