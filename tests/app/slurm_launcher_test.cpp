// SlurmLauncher on a real single-node SLURM with munge (label slurm; started
// by tests/integration/slurm/with_slurm.sh): a 2-task job submitted through
// the launcher completes with world size 2; SIGUSR1 (what --signal=USR1@90
// sends before the time limit) makes the engine checkpoint and requeue the
// job, which resumes by itself (SLURM_RESTART_COUNT) and completes with every
// step once; stop() is scancel and leaves nothing running.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "app/cluster/command_shell.hpp"
#include "app/cluster/slurm_launcher.hpp"
#include "app_test_support.hpp"
#include "cluster_test_support.hpp"

using namespace medsynth::app;
using namespace medsynth::app::test;

class SlurmLauncherTest : public QObject {
  Q_OBJECT

  QString work_;
  LocalShell sh_;

  static int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
  }
  SlurmLauncherOptions options() {
    SlurmLauncherOptions o;
    o.cluster.name = QStringLiteral("local-slurm");
    o.cluster.kind = ClusterKind::slurm;
    o.cluster.master_port = free_port();  // not the job-id default: other tests may run beside
    o.cluster.slurm.tasks_per_node = 2;
    o.cluster.slurm.time_limit = QStringLiteral("10:00");
    o.cluster.slurm.work_dir = work_ + QStringLiteral("/cluster-work");
    o.cluster.slurm.engine = qEnvironmentVariable("MEDSYNTH_ENGINE");
    o.records_dir = work_ + QStringLiteral("/records");
    o.poll_interval_ms = 200;
    return o;
  }
  LaunchRequest request(const QString& name, int max_steps) {
    const QString path = work_ + QStringLiteral("/%1.yaml").arg(name);
    write_all(path, tiny_cluster_job(name, max_steps));
    LaunchRequest r;
    r.job_file = path;
    return r;
  }
  QString squeue(const QString& id) { return QString::fromUtf8(sh_.run(QStringLiteral("squeue -h -j %1 -o '%T %r' 2>/dev/null").arg(id)).out).trimmed(); }

 private slots:
  void initTestCase() {
    work_ = qEnvironmentVariable("MEDSYNTH_TEST_SLURM_DIR");
    if (work_.isEmpty() || qEnvironmentVariableIsEmpty("SLURM_CONF"))
      QSKIP("needs the private SLURM: run through tests/integration/slurm/with_slurm.sh");
  }

  void twoTaskJobCompletesWithWorldSizeTwo() {
    SlurmLauncher launcher(options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(QStringLiteral("slurm-pair"), 40));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 180000);
    QCOMPARE(launcher.model()->status(), RunStatus::finished);
    QVERIFY(!launcher.job_id().isEmpty());
    int world = 0;
    const auto from_file = metric_series_of(launcher.run_dir() + QStringLiteral("/events.jsonl"), &world);
    QCOMPARE(world, 2);
    QCOMPARE(metric_series_of(*launcher.model()), from_file);
    QCOMPARE(launcher.nodes().value(0).state, QStringLiteral("completed"));
    const QString script = QString::fromUtf8(read_all(launcher.launch_dir() + QStringLiteral("/job.sbatch")));
    QVERIFY(script.contains(QStringLiteral("#SBATCH --signal=USR1@90")) && script.contains(QStringLiteral("#SBATCH --requeue")));
  }

  void sigusr1CheckpointsRequeuesAndTheJobResumes() {
    SlurmLauncher launcher(options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    QStringList states;  // the job states the launcher went through, for a failure message
    connect(&launcher, &Launcher::nodes_changed, this, [&] {
      const NodeState n = launcher.nodes().value(0);
      const QString entry = n.state + QStringLiteral(" (") + n.detail + QLatin1Char(')');
      if (states.isEmpty() || states.back() != entry) states << entry;
    });
    launcher.start(request(QStringLiteral("slurm-requeue"), 200));
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->series(QStringLiteral("train/loss")).size() >= 4 || !finished.isEmpty(), 180000);
    QVERIFY(finished.isEmpty());
    const QString id = launcher.job_id();
    QVERIFY(sh_.run(QStringLiteral("scancel --signal=USR1 %1").arg(id)).ok());
    // Requeued jobs wait ~2 min before they may start again; the test does
    // not: once it is pending, it may begin now.
    QTRY_VERIFY_WITH_TIMEOUT(squeue(id).startsWith(QStringLiteral("PENDING")) || !finished.isEmpty(), 120000);
    QCoreApplication::processEvents();  // a `finished` already queued from the follower thread
    QVERIFY2(finished.isEmpty(), qPrintable(QStringLiteral("the job ended instead of being requeued: ") + states.join(QStringLiteral(" -> "))));
    QVERIFY(sh_.run(QStringLiteral("scontrol update JobId=%1 StartTime=now").arg(id)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 240000);
    // On failure: SLURM's own account of the job and the batch output.
    QVERIFY2(launcher.model()->status() == RunStatus::finished,
             qPrintable(states.join(QStringLiteral(" -> ")) + QLatin1Char('\n') +
                        QString::fromUtf8(sh_.run(QStringLiteral("scontrol show job %1 2>&1; tail -n 30 %2/slurm-%1.out").arg(id, launcher.launch_dir())).out)));

    // Two attempts in one run directory: the second resumed from the SIGUSR1 checkpoint.
    const QByteArray events = read_all(launcher.run_dir() + QStringLiteral("/events.jsonl"));
    QCOMPARE(events.count("\"type\":\"run_started\""), 2);
    QVERIFY(events.contains("\"resumed_from\":\"" + launcher.run_dir().toUtf8() + "/checkpoints/last.safetensors\""));
    const QByteArray output = read_all(launcher.launch_dir() + QStringLiteral("/slurm-%1.out").arg(id));
    QVERIFY2(output.contains("requeued SLURM job " + id.toUtf8()), output.constData());
    QVERIFY2(output.contains("SLURM_RESTART_COUNT=1: resuming"), output.constData());
    // Every logged step once, in order, across the two attempts.
    const auto loss = metric_series_of(launcher.run_dir() + QStringLiteral("/events.jsonl")).value(QStringLiteral("train/loss"));
    QCOMPARE(loss.size(), 100);
    for (int i = 0; i < loss.size(); ++i) QCOMPARE(loss[i].first, qint64(2 * (i + 1)));
    QCOMPARE(metric_series_of(*launcher.model()), metric_series_of(launcher.run_dir() + QStringLiteral("/events.jsonl")));
  }

  void stopIsScancelAndLeavesNothingRunning() {
    SlurmLauncher launcher(options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(QStringLiteral("slurm-cancel"), 100000));
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->series(QStringLiteral("train/loss")).size() >= 2 || !finished.isEmpty(), 180000);
    QVERIFY(finished.isEmpty());
    QVERIFY(!processes_matching(launcher.launch_dir()).isEmpty());
    launcher.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 120000);
    QCOMPARE(launcher.model()->status(), RunStatus::stopped);
    QVERIFY(squeue(launcher.job_id()).isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(processes_matching(launcher.launch_dir()).isEmpty(), 10000);
    // SIGTERM from scancel: the engine saved a checkpoint past step 0 before leaving.
    const auto checkpoints = launcher.model()->checkpoints();
    QVERIFY(!checkpoints.isEmpty() && checkpoints.back().step > 0);
  }
};

QTEST_GUILESS_MAIN(SlurmLauncherTest)
#include "slurm_launcher_test.moc"
