// SshLauncher and SshShell against two real sshd "nodes" on 127.0.0.2 and
// 127.0.0.3 (label ssh; started by tests/integration/ssh/with_sshd_pair.sh):
// host-key policy (unknown asks and shows the fingerprint, changed is refused
// without asking), a refused client key, Test connection, a 2-node x 1-process
// Gloo run that completes with world size 2 while its links are cut (no event
// lost or repeated), stop() reaching both nodes with nothing left running,
// and reattaching after the console was closed.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/cluster/host_check.hpp"
#include "app/cluster/ssh_launcher.hpp"
#include "app/cluster/ssh_shell.hpp"
#include "app_test_support.hpp"
#include "cluster_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

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
