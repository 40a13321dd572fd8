// LocalLauncher with the real engine: a tiny quickstart job to completion,
// stop() of a running job (checkpoint, status stopped), a job-file error, a
// crashing engine and a missing one. Runs through `launch --nproc-per-node 1`
// when the engine has that verb, else `train` directly.
#include <algorithm>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/launch/local_launcher.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

// The tiny job of fixtures/make_fixtures.sh: ~10 s for 30 steps on 2 cores.
QStringList tiny_overrides(int max_steps) {
  return {QStringLiteral("training.max_steps=%1").arg(max_steps), "training.val_every_steps=15", "data.num_train=2",
          "data.num_val=1", "data.phantom_size=[32,32,32]", "data.patch_size=[16,16,16]",
          "model.autoencoder.num_channels=[8,8]", "model.autoencoder.num_res_blocks=[1,1]",
          "model.autoencoder.attention_levels=[false,false]", "model.autoencoder.norm_num_groups=4",
          "output.log_every_steps=5", "output.save_reconstructions=1"};
}

bool engine_has_launch(const QString& engine) {
  QProcess p;
  p.start(engine, {QStringLiteral("launch"), QStringLiteral("--help")});
  return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

}  // namespace

class LocalLauncherTest : public QObject {
  Q_OBJECT

  QString engine_;
  bool launch_verb_ = true;

  LocalLauncherOptions options() const {
    LocalLauncherOptions o;
    o.engine = engine_;
    o.use_launch_verb = launch_verb_;
    return o;
  }

  // VmHWM: the most resident memory this process has had.
  static qint64 peak_resident_kib() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : status.readAll().split('\n'))
      if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return 0;
  }

  LaunchRequest request(const QString& runs_dir, int max_steps) const {
    LaunchRequest r;
    r.job_file = test::source_dir() + "/resources/jobs/quickstart.yaml";
    r.overrides = tiny_overrides(max_steps);
    r.runs_dir = runs_dir;
    return r;
  }

 private slots:
  void initTestCase() {
    engine_ = test::engine_path();
    if (engine_.isEmpty()) QSKIP("medsynth-engine not built (ninja medsynth-engine) and MEDSYNTH_ENGINE not set");
    launch_verb_ = engine_has_launch(engine_);
    if (!launch_verb_) qWarning("TODO: this engine has no `launch` verb; running `train` directly");
  }

  void builds_the_engine_command_line() {
    LocalLauncher launcher(nullptr, options());
    LaunchRequest r = request(QStringLiteral("/tmp/runs"), 30);
    r.nproc_per_node = 2;
    r.max_restarts = 1;
    r.resume_run_dir = QStringLiteral("auto");
    r.data_path = QStringLiteral("/data/ct");
    const QStringList args = launcher.arguments(r);
    if (launch_verb_) {
      QCOMPARE(args.mid(0, 6), (QStringList{"launch", "--nproc-per-node", "2", "--max-restarts", "1", "train"}));
    }
    QVERIFY(args.contains(QStringLiteral("--json")));
    QVERIFY(args.contains(QStringLiteral("--no-progress")));
    QCOMPARE(args.mid(args.indexOf("train") + 1, 1), QStringList{r.job_file});
    QCOMPARE(args.mid(args.indexOf("train") + 2, r.overrides.size()), r.overrides);
    QCOMPARE(args[args.indexOf("--runs-dir") + 1], QStringLiteral("/tmp/runs"));
    QCOMPARE(args[args.indexOf("--resume") + 1], QStringLiteral("auto"));
    QCOMPARE(args[args.indexOf("--data") + 1], QStringLiteral("/data/ct"));
  }

  void runs_a_tiny_job_to_completion() {
    QTemporaryDir tmp;
    LocalLauncher launcher(nullptr, options());
    QSignalSpy started(&launcher, &Launcher::started);
    QSignalSpy run_dir(&launcher, &Launcher::run_dir_known);
    QSignalSpy stderr_lines(&launcher, &Launcher::stderr_text);
    QSignalSpy finished(&launcher, &Launcher::finished);
    QSignalSpy metrics(launcher.model(), &RunModel::metric_appended);
    launcher.start(request(tmp.path(), 30));
    QVERIFY(launcher.is_running() || finished.size() == 1);
    QVERIFY(finished.wait(240000));
    QCOMPARE(started.size(), 1);
    QCOMPARE(finished[0][0].toInt(), 0);
    QCOMPARE(finished[0][1].value<RunStatus>(), RunStatus::finished);
    const RunModel* m = launcher.model();
    QCOMPARE(m->status(), RunStatus::finished);
    QCOMPARE(m->current_step(), 30);
    QCOMPARE(m->series(QStringLiteral("train/loss")).size(), 6);
    QCOMPARE(m->series(QStringLiteral("val/psnr")).size(), 2);
    QVERIFY(metrics.size() > 0);
    QCOMPARE(m->reader_stats().problems(), 0);
    QCOMPARE(run_dir.size(), 1);
    const QString dir = run_dir[0][0].toString();
    QVERIFY(dir.startsWith(tmp.path()));
    QCOMPARE(m->run_dir(), dir);
    QVERIFY(QFile::exists(dir + "/events.jsonl"));
    QVERIFY(stderr_lines.size() > 0);
    // The rank log is followed for the log tab (every level, not only warnings).
    QTRY_VERIFY_WITH_TIMEOUT(m->logs(0).size() >= 3, 10000);
    const auto logs = m->logs(0);
    QVERIFY(std::any_of(logs.begin(), logs.end(), [](const auto& line) { return line.level == QStringLiteral("info"); }));
    QVERIFY(!launcher.is_running());
  }

  void stop_ends_a_running_job_as_stopped_with_a_checkpoint() {
    QTemporaryDir tmp;
    LocalLauncher launcher(nullptr, options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(tmp.path(), 100000));
    QTRY_VERIFY_WITH_TIMEOUT(launcher.model()->current_step() >= 5, 120000);
    QVERIFY(launcher.is_running());
    launcher.stop();
    QVERIFY(launcher.stop_requested());
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished[0][0].toInt(), 143);
    QCOMPARE(finished[0][1].value<RunStatus>(), RunStatus::stopped);
    const RunModel* m = launcher.model();
    QCOMPARE(m->status(), RunStatus::stopped);
    QCOMPARE(m->finish_reason(), QStringLiteral("stopped"));
    bool saved = false;
    for (const auto& c : m->checkpoints())
      if (c.kind == QLatin1String("last") && c.step >= 5 && QFile::exists(c.path)) saved = true;
    QVERIFY2(saved, "no last checkpoint written at the stop");
  }

  void a_job_file_error_fails_with_its_message() {
    QTemporaryDir tmp;
    LocalLauncher launcher(nullptr, options());
    QSignalSpy finished(&launcher, &Launcher::finished);
    LaunchRequest r = request(tmp.path(), 30);
    r.overrides << QStringLiteral("training.lr=-1");
    launcher.start(r);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished[0][0].toInt(), 2);
    QCOMPARE(finished[0][1].value<RunStatus>(), RunStatus::failed);
    QVERIFY2(launcher.model()->failure_message().contains(QStringLiteral("training.lr")),
             qPrintable(launcher.model()->failure_message()));
  }

  void a_crashing_engine_ends_the_run_as_failed() {
    QTemporaryDir tmp;
    const QString fake = tmp.filePath(QStringLiteral("crashing-engine"));
    QVERIFY(test::write_all(fake, "#!/bin/sh\n"
                                  "echo '{\"v\":1,\"type\":\"run_started\",\"time\":\"2026-11-22T05:46:24.477Z\",\"rank\":0,"
                                  "\"run_dir\":\"/tmp/x\",\"job_name\":\"x\",\"task\":\"autoencoder\",\"config_hash\":\"0\","
                                  "\"world_size\":1,\"effective_batch\":1,\"total_steps\":10,\"device\":\"cpu\"}'\n"
                                  "echo 'segmentation fault ahead' >&2\n"
                                  "kill -9 $$\n"));
    QFile::setPermissions(fake, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    LocalLauncherOptions o;
    o.engine = fake;
    o.follow_rank_logs = false;
    LocalLauncher launcher(nullptr, o);
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(tmp.path(), 10));
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished[0][1].value<RunStatus>(), RunStatus::failed);
    QCOMPARE(launcher.model()->status(), RunStatus::failed);
    QVERIFY(launcher.model()->failure_message().contains(QStringLiteral("crashed")));
    QVERIFY(launcher.model()->failure_message().contains(QStringLiteral("segmentation fault ahead")));
  }

  // Issue 19.9: a worker that prints 64 MiB without a newline raised the
  // console's peak memory by as much (the stderr relay kept the whole line).
  void a_worker_printing_64_mib_without_a_newline_does_not_raise_peak_memory() {
    QTemporaryDir tmp;
    const QString fake = tmp.filePath(QStringLiteral("chatty-engine"));
    QVERIFY(test::write_all(fake, "#!/bin/sh\n"
                                  "head -c 67108864 /dev/zero | tr '\\0' x >&2\n"
                                  "echo ' end of the long line' >&2\n"
                                  "echo 'a short line' >&2\n"
                                  "exit 1\n"));
    QFile::setPermissions(fake, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    LocalLauncherOptions o;
    o.engine = fake;
    o.follow_rank_logs = false;
    LocalLauncher launcher(nullptr, o);
    QStringList relayed;
    qsizetype longest = 0;
    connect(&launcher, &Launcher::stderr_text, this, [&](const QString& line) {
      relayed << line.right(60);
      longest = std::max(longest, line.size());
    });
    QSignalSpy finished(&launcher, &Launcher::finished);
    const qint64 before = peak_resident_kib();
    launcher.start(request(tmp.path(), 10));
    QVERIFY(finished.wait(60000));
    const qint64 rise = peak_resident_kib() - before;
    QVERIFY2(rise < 16 * 1024, qPrintable(QStringLiteral("peak resident memory rose by %1 KiB").arg(rise)));
    QCOMPARE(relayed.size(), 2);
    QVERIFY2(relayed[0].endsWith(QStringLiteral("more bytes of this line dropped]")), qPrintable(relayed.join(QLatin1Char('\n'))));
    QVERIFY(longest < 128 * 1024);
    QCOMPARE(relayed[1], QStringLiteral("a short line"));
  }

  void a_missing_engine_or_bad_request_fails_to_start() {
    LocalLauncherOptions o;
    o.engine = QStringLiteral("/no/such/medsynth-engine");
    LocalLauncher launcher(nullptr, o);
    QSignalSpy refused(&launcher, &Launcher::failed_to_start);
    QSignalSpy finished(&launcher, &Launcher::finished);
    launcher.start(request(QStringLiteral("/tmp"), 10));
    QCOMPARE(refused.size(), 1);
    QVERIFY(refused[0][0].toString().contains(QStringLiteral("/no/such/medsynth-engine")));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(launcher.model()->status(), RunStatus::failed);

    LocalLauncher ok(nullptr, options());
    QSignalSpy refused2(&ok, &Launcher::failed_to_start);
    LaunchRequest bad;
    bad.job_file = QStringLiteral("/no/such/job.yaml");
    bad.nproc_per_node = 0;
    bad.overrides = {QStringLiteral("training.lr")};
    ok.start(bad);
    QCOMPARE(refused2.size(), 1);
    const QString reason = refused2[0][0].toString();
    QVERIFY(reason.contains(QStringLiteral("job_file")));
    QVERIFY(reason.contains(QStringLiteral("nproc_per_node")));
    QVERIFY(reason.contains(QStringLiteral("overrides")));
  }
};

QTEST_GUILESS_MAIN(LocalLauncherTest)
#include "local_launcher_test.moc"
