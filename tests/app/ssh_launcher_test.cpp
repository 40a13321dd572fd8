// SshLauncher and SshShell against two real sshd "nodes" on 127.0.0.2 and
// 127.0.0.3 (label ssh; started by tests/integration/ssh/with_sshd_pair.sh):
// host-key policy (unknown asks and shows the fingerprint, changed is refused
// without asking), a refused client key, Test connection, a 2-node x 1-process
// Gloo run that completes with world size 2 while its links are cut (no event
// lost or repeated), stop() reaching both nodes with nothing left running,
// and reattaching after the console was closed.
#include <QDirIterator>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "app/cluster/host_check.hpp"
#include "app/cluster/ssh_launcher.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "app_test_support.hpp"
#include "cluster_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

namespace {
// Answers a passphrase question the way the console's dialog does: with what
// the user typed, once per question. Never trusts an unknown host.
class TypedPassphrase : public AuthDelegate {
 public:
  explicit TypedPassphrase(QString typed) : typed_(std::move(typed)) {}
  bool trust_unknown_host(const QString&, const QString&, const QString&) override { return false; }
  std::optional<QString> key_passphrase(const QString&) override {
    ++asked_;
    return typed_;
  }
  int asked() const { return asked_; }

 private:
  QString typed_;
  int asked_ = 0;
};

// Every file under `root` that holds `needle` (binary or text).
QStringList files_containing(const QString& root, const QByteArray& needle) {
  QStringList found;
  QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString path = it.next();
    QFile f(path);
    if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle)) found << path;
  }
  return found;
}
}  // namespace

class SshLauncherTest : public QObject {
  Q_OBJECT

  QString dir_;
  ClusterSpec cluster_;
  QTemporaryDir temp_;

  QString write_job(const QString& name, int max_steps) {
    const QString path = temp_.filePath(name + QStringLiteral(".yaml"));
    write_all(path, tiny_cluster_job(name, max_steps));
    return path;
  }
  SshLauncherOptions options() const {
    SshLauncherOptions o;
    o.cluster = cluster_;
    o.records_dir = temp_.filePath(QStringLiteral("records"));
    o.poll_interval_ms = 100;
    o.stop_grace_ms = 60000;
    return o;
  }
  static LaunchRequest request(const QString& job) {
    LaunchRequest r;
    r.job_file = job;
    r.nproc_per_node = 1;
    return r;
  }
  // Kills the sshd processes serving current connections (not the listeners):
  // to the console this is a network failure.
  void cut_links() {
    for (const QString n : {QStringLiteral("node-a"), QStringLiteral("node-b")}) {
      const QString pid = QString::fromUtf8(read_all(dir_ + QStringLiteral("/%1/sshd.pid").arg(n))).trimmed();
      QProcess::execute(QStringLiteral("pkill"), {QStringLiteral("-KILL"), QStringLiteral("-P"), pid});
    }
  }
  static QString events_file(const Launcher& l) { return l.run_dir() + QStringLiteral("/events.jsonl"); }

 private slots:
  void initTestCase() {
    dir_ = qEnvironmentVariable("MEDSYNTH_TEST_SSH_DIR");
    if (dir_.isEmpty()) QSKIP("needs the sshd pair: run through tests/integration/ssh/with_sshd_pair.sh");
    QString error;
    auto spec = load_cluster_file(dir_ + QStringLiteral("/cluster.yaml"), &error);
    QVERIFY2(spec, qPrintable(error));
    cluster_ = *spec;
    QVERIFY(SshShell::libssh_supported());
  }

  void unknownHostKeyIsRefusedWithItsFingerprintThenTrustedOnRequest() {
    const QString known = temp_.filePath(QStringLiteral("empty_known_hosts"));
    SshConnectOptions o;
    o.known_hosts = known;
    FixedAuthDelegate refuse(false);
    o.delegate = &refuse;
    QString error;
    HostKeyState state;
    QVERIFY(!SshShell::connect(cluster_.hosts[0], o, &error, &state));
    QCOMPARE(state, HostKeyState::unknown);
    QCOMPARE(refuse.asked(), 1);
    const QString fingerprint = QString::fromUtf8(read_all(dir_ + QStringLiteral("/node-a.fp"))).trimmed();
    QVERIFY2(error.contains(QStringLiteral("unknown host key")) && error.contains(fingerprint), qPrintable(error));
    QVERIFY(!QFile::exists(known) || read_all(known).isEmpty());

    FixedAuthDelegate trust(true);
    o.delegate = &trust;
    auto shell = SshShell::connect(cluster_.hosts[0], o, &error);
    QVERIFY2(shell, qPrintable(error));
    QCOMPARE(shell->fingerprint(), fingerprint);
    QVERIFY(read_all(known).contains(QStringLiteral("[127.0.0.2]:%1").arg(cluster_.hosts[0].port).toUtf8()));
    const ShellResult r = shell->run(QStringLiteral("echo $((6*7))"));
    QCOMPARE(r.exit_code, 0);
    QCOMPARE(r.out.trimmed(), QByteArray("42"));

    // Now known: no question asked, even of a delegate that would refuse.
    o.delegate = &refuse;
    QVERIFY2(SshShell::connect(cluster_.hosts[0], o, &error, &state), qPrintable(error));
    QCOMPARE(state, HostKeyState::known);
    QCOMPARE(refuse.asked(), 1);
  }

  void changedHostKeyIsRefusedWithoutAsking() {
    // node-b's key recorded under node-a's name: what a man in the middle looks like.
    const QString known = temp_.filePath(QStringLiteral("changed_known_hosts"));
    const QByteArray b_key = read_all(dir_ + QStringLiteral("/node-b.pub")).split(' ').mid(0, 2).join(' ');
    write_all(known, QStringLiteral("[127.0.0.2]:%1 ").arg(cluster_.hosts[0].port).toUtf8() + b_key + '\n');
    SshConnectOptions o;
    o.known_hosts = known;
    FixedAuthDelegate trust(true);
    o.delegate = &trust;
    QString error;
    HostKeyState state;
    QVERIFY(!SshShell::connect(cluster_.hosts[0], o, &error, &state));
    QCOMPARE(state, HostKeyState::changed);
    QCOMPARE(trust.asked(), 0);
    QVERIFY2(error.contains(QStringLiteral("CHANGED")) && error.contains(QStringLiteral("refusing")), qPrintable(error));
  }

  void wrongClientKeyIsRefusedNamingTheKey() {
    ClusterHost host = cluster_.hosts[1];
    host.key_file = dir_ + QStringLiteral("/wrong_ed25519");
    SshConnectOptions o;
    o.known_hosts = cluster_.known_hosts_path();
    QString error;
    QVERIFY(!SshShell::connect(host, o, &error));
    QVERIFY2(error.contains(QStringLiteral("authentication failed")) && error.contains(host.key_file) &&
                 error.contains(QStringLiteral("127.0.0.3")),
             qPrintable(error));
  }

  // Issue 19.9: the raw output of a remote command had no cap.
  void aRemoteCommandsOutputIsCapped() {
    SshConnectOptions o;
    o.known_hosts = cluster_.known_hosts_path();
    QString error;
    auto shell = SshShell::connect(cluster_.hosts[0], o, &error);
    QVERIFY2(shell, qPrintable(error));
    const ShellResult r = shell->run(QStringLiteral("head -c 104857600 /dev/zero; head -c 2097152 /dev/zero >&2"), {}, 120000);
    QVERIFY2(r.ok(), qPrintable(r.problem()));
    QCOMPARE(r.out.size(), k_max_shell_stdout_bytes);
    QCOMPARE(r.err.size(), k_max_shell_stderr_bytes);
    QCOMPARE(r.discarded_bytes, qint64{104857600} - k_max_shell_stdout_bytes + qint64{2097152} - k_max_shell_stderr_bytes);
  }

  // Weak scenario 25 made strong: a passphrase-protected key works when the
  // user types the passphrase (the dialog's delegate) and through ssh-agent,
  // and the passphrase is found nowhere afterwards: not in the launch records,
  // run directories, logs, known_hosts, the servers' files or the settings.
  void aPassphraseProtectedKeyWorksTypedAndThroughTheAgentAndIsNeverWritten() {
    const QString key = dir_ + QStringLiteral("/secret_ed25519");
    const QByteArray secret = read_all(dir_ + QStringLiteral("/secret.passphrase"));
    QVERIFY(secret.size() > 20);
    ClusterSpec cluster = cluster_;
    for (auto& host : cluster.hosts) host.key_file = key;
    SshConnectOptions o;
    o.known_hosts = cluster.known_hosts_path();
    QString error;

    TypedPassphrase mistyped(QStringLiteral("not the passphrase"));
    o.delegate = &mistyped;
    QVERIFY(!SshShell::connect(cluster.hosts[0], o, &error));
    QCOMPARE(mistyped.asked(), 1);
    QVERIFY2(error.contains(QStringLiteral("wrong passphrase")) && error.contains(key), qPrintable(error));

    // Typed right: a whole launch on both nodes.
    TypedPassphrase typed(QString::fromUtf8(secret));
    SshLauncherOptions lo = options();
    lo.cluster = cluster;
    lo.delegate = &typed;
    {
      SshLauncher launcher(lo);
      QSignalSpy finished(&launcher, &Launcher::finished);
      launcher.start(request(write_job(QStringLiteral("secret"), 4)));
      QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 240000);
      QCOMPARE(launcher.model()->status(), RunStatus::finished);
      QVERIFY(typed.asked() >= 2);  // each node's connection asks; nothing remembers the answer
      for (int rank : launcher.model()->log_ranks())
        for (const LogLine& line : launcher.model()->logs(rank)) QVERIFY2(!line.message.toUtf8().contains(secret), qPrintable(line.message));
    }

    // ssh-agent holding the key unlocked: no question, with or without key_file.
    const QString socket = temp_.filePath(QStringLiteral("agent.sock"));
    QProcess agent;
    agent.start(QStringLiteral("ssh-agent"), {QStringLiteral("-D"), QStringLiteral("-a"), socket});
    QVERIFY(agent.waitForStarted());
    QTRY_VERIFY(QFileInfo::exists(socket));
    const QString askpass = temp_.filePath(QStringLiteral("askpass.sh"));
    write_all(askpass, "#!/bin/sh\ncat '" + (dir_ + QStringLiteral("/secret.passphrase")).toUtf8() + "'\n");
    QFile::setPermissions(askpass, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QProcess add;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SSH_AUTH_SOCK"), socket);
    env.insert(QStringLiteral("SSH_ASKPASS"), askpass);
    env.insert(QStringLiteral("SSH_ASKPASS_REQUIRE"), QStringLiteral("force"));
    env.insert(QStringLiteral("DISPLAY"), QStringLiteral(":0"));
    add.setProcessEnvironment(env);
    add.setStandardInputFile(QProcess::nullDevice());
    add.start(QStringLiteral("ssh-add"), {key});
    QVERIFY(add.waitForFinished(30000));
    QVERIFY2(add.exitCode() == 0, add.readAllStandardError().constData());
    qputenv("SSH_AUTH_SOCK", socket.toUtf8());
    TypedPassphrase unused(QStringLiteral("never asked"));
    o.delegate = &unused;
    auto through_agent = SshShell::connect(cluster.hosts[0], o, &error);
    ClusterHost no_key_file = cluster.hosts[1];
    no_key_file.key_file.clear();
    auto default_auth = SshShell::connect(no_key_file, o, &error);
    qunsetenv("SSH_AUTH_SOCK");
    agent.kill();
    agent.waitForFinished();
    QVERIFY2(through_agent, qPrintable(error));
    QVERIFY2(default_auth, qPrintable(error));
    QCOMPARE(unused.asked(), 0);
    QCOMPARE(through_agent->run(QStringLiteral("echo agent")).out, QByteArray("agent\n"));

    QStringList leaked = files_containing(dir_, secret) + files_containing(temp_.path(), secret);
    leaked.removeAll(dir_ + QStringLiteral("/secret.passphrase"));  // the test's own copy
    leaked.removeAll(askpass);
    for (const QString& root : {qEnvironmentVariable("MEDSYNTH_LAUNCH_RECORDS"), QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation),
                                QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/medsynth")})
      if (!root.isEmpty() && QFileInfo(root).isDir()) leaked += files_containing(root, secret);
    QVERIFY2(leaked.isEmpty(), qPrintable(leaked.join(QStringLiteral(", "))));
  }

  void testConnectionReportsTheRemoteEngine() {
    const HostCheck c = check_host(cluster_, cluster_.hosts[1], nullptr);
    QVERIFY2(c.ok(), qPrintable(c.summary()));
    QCOMPARE(c.fingerprint, QString::fromUtf8(read_all(dir_ + QStringLiteral("/node-b.fp"))).trimmed());
    QVERIFY(!c.engine_version.isEmpty());
    QCOMPARE(c.cuda_devices, 0);
    QVERIFY2(c.summary().contains(QStringLiteral("medsynth-engine ") + c.engine_version), qPrintable(c.summary()));

    ClusterSpec broken = cluster_;
    broken.hosts[1].engine = QStringLiteral("/nonexistent/medsynth-engine");
    const HostCheck d = check_host(broken, broken.hosts[1], nullptr);
    QVERIFY(d.connected && !d.ok());
    QVERIFY2(d.engine_problem.contains(QStringLiteral("/nonexistent/medsynth-engine")), qPrintable(d.engine_problem));
  }

  void twoNodeRunCompletesAndCutLinksLoseNoEvents() {
    SshLauncher launcher(options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(write_job(QStringLiteral("pair"), 120)));
    QVERIFY(launcher.is_running());
    QCOMPARE(launcher.nodes().size(), 2);
    // Cut both links while metrics are streaming, twice.
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->series(QStringLiteral("train/loss")).size() >= 5 || !finished.isEmpty(), 120000);
    QVERIFY2(finished.isEmpty(), "the run ended before the links could be cut");
    cut_links();
    QTRY_VERIFY_WITH_TIMEOUT(launcher.reconnects() >= 1, 60000);
    const qsizetype before = launcher.model()->series(QStringLiteral("train/loss")).size();
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->series(QStringLiteral("train/loss")).size() > before + 3 || !finished.isEmpty(), 120000);
    cut_links();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 240000);

    QCOMPARE(launcher.model()->status(), RunStatus::finished);
    QVERIFY(launcher.reconnects() >= 2);
    QCOMPARE(launcher.model()->world_size(), 2);
    int world = 0;
    const auto from_file = metric_series_of(events_file(launcher), &world);
    QCOMPARE(world, 2);
    QVERIFY(from_file.value(QStringLiteral("train/loss")).size() >= 50);
    QCOMPARE(metric_series_of(*launcher.model()), from_file);  // none lost, none repeated
    for (const NodeState& n : launcher.nodes()) QCOMPARE(n.exit_code, 0);
    // Both ranks' logs came back through their nodes' stderr.
    for (int rank : {0, 1}) {
      const auto& lines = launcher.model()->logs(rank);
      QVERIFY2(std::any_of(lines.begin(), lines.end(), [](const LogLine& l) { return l.message.contains(QStringLiteral("run finished after 120 steps")); }),
               qPrintable(QStringLiteral("rank %1: %2 log lines").arg(rank).arg(lines.size())));
    }
    QTRY_VERIFY_WITH_TIMEOUT(processes_matching(launcher.record().launch_id).isEmpty(), 10000);
  }

  void stopReachesEveryNodeAndLeavesNothingRunning() {
    SshLauncher launcher(options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(write_job(QStringLiteral("long"), 100000)));
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->series(QStringLiteral("train/loss")).size() >= 3 || !finished.isEmpty(), 120000);
    QVERIFY(finished.isEmpty());
    const QString id = launcher.record().launch_id;
    QCOMPARE(processes_matching(id).size() >= 2, true);  // both nodes' engines
    launcher.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 120000);
    QStringList nodes;  // for the failure message: how each node ended
    for (const NodeState& n : launcher.nodes()) nodes << QStringLiteral("%1: %2 (%3) exit %4").arg(n.name, n.state, n.detail).arg(n.exit_code);
    QVERIFY2(launcher.model()->status() == RunStatus::stopped,
             qPrintable(to_string(launcher.model()->status()) + QStringLiteral(": ") + launcher.model()->failure_message() +
                        QStringLiteral(" | ") + nodes.join(QStringLiteral("; "))));
    for (const NodeState& n : launcher.nodes()) QCOMPARE(n.exit_code, 143);
    QVERIFY(processes_matching(id).isEmpty());
    // The stop saved a checkpoint past step 0.
    const auto checkpoints = launcher.model()->checkpoints();
    QVERIFY(!checkpoints.isEmpty() && checkpoints.back().step > 0);
  }

  void reattachAfterTheConsoleIsClosedFollowsTheRunToItsEnd() {
    QString id;
    {
      SshLauncher first(options());
      first.start(request(write_job(QStringLiteral("reattach"), 150)));
      QTRY_VERIFY_WITH_TIMEOUT(first.model()->series(QStringLiteral("train/loss")).size() >= 3, 120000);
      id = first.record().launch_id;
    }  // the console closes: the engines go on
    QVERIFY(!processes_matching(id).isEmpty());
    QString error;
    const auto record = load_launch_record(temp_.filePath(QStringLiteral("records/%1.json").arg(id)), &error);
    QVERIFY2(record, qPrintable(error));
    SshLauncher second(options());
    QSignalSpy finished(&second, &Launcher::finished);
    second.reattach(*record);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 240000);
    QCOMPARE(second.model()->status(), RunStatus::finished);
    QCOMPARE(metric_series_of(*second.model()), metric_series_of(events_file(second)));
  }
};

QTEST_GUILESS_MAIN(SshLauncherTest)
#include "ssh_launcher_test.moc"
