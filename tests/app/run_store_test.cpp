// RunStore summarizing real run directories (fixtures/: finished, failed,
// stopped, interrupted) and scanning roots asynchronously.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/runs/run_store.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

// Backdates every file of a run directory (as if its process died `seconds` ago).
void age(const QString& dir, qint64 seconds) {
  const QDateTime then = QDateTime::currentDateTimeUtc().addSecs(-seconds);
  for (const QString& rel : {QStringLiteral("events.jsonl"), QStringLiteral("job.yaml"), QStringLiteral("logs/rank0.log")}) {
    QFile f(dir + "/" + rel);
    if (f.open(QIODevice::ReadWrite)) f.setFileTime(then, QFileDevice::FileModificationTime);
  }
}

}  // namespace

class RunStoreTest : public QObject {
  Q_OBJECT

 private slots:
  void summarizes_a_finished_run() {
    const RunSummary s = RunStore::summarize(test::fixture(QStringLiteral("finished")));
    QCOMPARE(s.status, RunStatus::finished);
    QCOMPARE(s.name, QStringLiteral("finished"));
    QCOMPARE(s.job_name, QStringLiteral("quickstart"));
    QCOMPARE(s.task, QStringLiteral("autoencoder"));
    QCOMPARE(s.steps, 30);
    QCOMPARE(s.total_steps, 30);
    QCOMPARE(s.world_size, 1);
    QCOMPARE(s.config_hash.size(), 16);
    QVERIFY(s.final_metrics.contains(QStringLiteral("val/psnr")));
    QVERIFY(s.final_metrics.value(QStringLiteral("val/psnr")) > 0);
    QVERIFY(s.started.isValid() && s.ended > s.started);
    QCOMPARE(s.finish_reason, QStringLiteral("completed"));
    QCOMPARE(s.unreadable_lines, 0);
  }

  void summarizes_failed_and_stopped_runs() {
    const RunSummary failed = RunStore::summarize(test::fixture(QStringLiteral("failed")));
    QCOMPARE(failed.status, RunStatus::failed);
    QVERIFY(failed.failure_message.contains(QStringLiteral("not a NIfTI file")));
    QCOMPARE(failed.job_name, QStringLiteral("quickstart"));  // from job.yaml: no run_started before the failure
    const RunSummary stopped = RunStore::summarize(test::fixture(QStringLiteral("stopped")));
    QCOMPARE(stopped.status, RunStatus::stopped);
    QVERIFY(stopped.steps > 0 && stopped.steps < stopped.total_steps);
  }

  void an_interrupted_run_is_running_only_while_its_files_change() {
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("quickstart-20261122-090116"));
    QVERIFY(test::copy_run(test::fixture(QStringLiteral("interrupted")), dir));
    const QDateTime modified = QFileInfo(dir + "/events.jsonl").lastModified().toUTC();
    RunStoreOptions options;
    options.stale_after_s = 600;
    QCOMPARE(RunStore::summarize(dir, options, modified.addSecs(60)).status, RunStatus::running);
    const RunSummary stale = RunStore::summarize(dir, options, modified.addSecs(3600));
    QCOMPARE(stale.status, RunStatus::unknown);
    QVERIFY2(stale.failure_message.startsWith(QStringLiteral("interrupted")), qPrintable(stale.failure_message));
    QVERIFY(stale.steps >= 10);
    // A finished run never goes stale.
    QCOMPARE(RunStore::summarize(test::fixture(QStringLiteral("finished")), options, modified.addDays(30)).status,
             RunStatus::finished);
  }

  void refresh_scans_the_roots_on_a_worker_thread() {
    QTemporaryDir tmp;
    const QString root = tmp.filePath(QStringLiteral("runs"));
    for (const char* name : {"finished", "failed", "stopped", "interrupted"})
      QVERIFY(test::copy_run(test::fixture(QString::fromLatin1(name)), root + "/" + name + "-run"));
    QVERIFY(test::write_all(root + "/fresh-run/job.yaml", "name: fresh\n"));  // created, nothing written yet
    QVERIFY(QDir().mkpath(root + "/not-a-run/checkpoints"));
    age(root + "/interrupted-run", 2 * 3600);

    RunStore store;
    store.set_roots({root, tmp.filePath(QStringLiteral("missing"))});
    QSignalSpy refreshed(&store, &RunStore::refreshed);
    store.refresh();
    // No check of is_refreshing() here: the scan may finish before this line
    // while its `refreshed` is still queued (neither held: a flake under load).
    QVERIFY(refreshed.size() == 1 || refreshed.wait(10000));
    QCOMPARE(store.runs().size(), 5);
    auto status_of = [&](const char* name) {
      const auto s = store.find(root + "/" + name);
      return s ? s->status : RunStatus::pending;
    };
    QCOMPARE(status_of("finished-run"), RunStatus::finished);
    QCOMPARE(status_of("failed-run"), RunStatus::failed);
    QCOMPARE(status_of("stopped-run"), RunStatus::stopped);
    QCOMPARE(status_of("interrupted-run"), RunStatus::unknown);
    QCOMPARE(store.find(root + "/fresh-run")->job_name, QStringLiteral("fresh"));
    QCOMPARE(store.find(root + "/fresh-run")->status, RunStatus::pending);
    QVERIFY(!store.find(root + "/not-a-run"));
    for (int i = 1; i < store.runs().size(); ++i) QVERIFY(store.runs()[i - 1].started >= store.runs()[i].started);

    // A run this console is running itself is never shown as interrupted.
    store.set_active(root + "/interrupted-run", true);
    store.refresh();
    QVERIFY(refreshed.wait(10000));
    QCOMPARE(status_of("interrupted-run"), RunStatus::running);
  }

  // Issue 38: a sweep's runs carry its name and their swept values, so the
  // history shows (and sorts) them together.
  void a_sweeps_runs_are_tagged_with_it() {
    QTemporaryDir tmp;
    const QString root = tmp.filePath(QStringLiteral("runs"));
    QVERIFY(test::write_all(root + "/quickstart-1/job.yaml", "name: quickstart\n"));
    QVERIFY(test::write_all(root + "/quickstart-2/job.yaml", "name: quickstart\n"));
    QVERIFY(test::write_all(root + "/other-1/job.yaml", "name: other\n"));
    QVERIFY(test::write_all(root + "/sweep-quickstart-20261127-114201.json",
                            R"({"axes": ["training.lr"], "runs": [
                                 {"run_dir": "quickstart-1", "values": {"training.lr": "1e-3"}, "status": "completed"},
                                 {"run_dir": "quickstart-2", "values": {"training.lr": "3e-3"}, "status": "completed"}]})"));
    RunStore store;
    store.set_roots({root});
    QSignalSpy refreshed(&store, &RunStore::refreshed);
    store.refresh();
    QVERIFY(refreshed.size() == 1 || refreshed.wait(10000));
    QCOMPARE(store.find(root + "/quickstart-2")->sweep, QStringLiteral("quickstart-20261127-114201: training.lr=3e-3"));
    QCOMPARE(store.find(root + "/quickstart-1")->sweep, QStringLiteral("quickstart-20261127-114201: training.lr=1e-3"));
    QVERIFY(store.find(root + "/other-1")->sweep.isEmpty());
  }

  void finds_run_directories_at_depth() {
    QTemporaryDir tmp;
    QVERIFY(test::write_all(tmp.filePath("a/runs/x-1/events.jsonl"), ""));
    QVERIFY(test::write_all(tmp.filePath("b/y-1/job.yaml"), "name: y\n"));
    QVERIFY(test::write_all(tmp.filePath("c/d/e/z-1/job.yaml"), "name: z\n"));
    // x-1 and y-1 are 3 and 2 levels below the root, z-1 is 4.
    const QStringList dirs = RunStore::find_run_dirs({tmp.path()}, 3);
    QCOMPARE(dirs.size(), 2);
    QVERIFY(dirs.contains(QDir(tmp.filePath("a/runs/x-1")).absolutePath()));
    QVERIFY(dirs.contains(QDir(tmp.filePath("b/y-1")).absolutePath()));
    QCOMPARE(RunStore::find_run_dirs({tmp.path()}, 2), QStringList{QDir(tmp.filePath("b/y-1")).absolutePath()});
    QCOMPARE(RunStore::find_run_dirs({tmp.filePath("a/runs/x-1")}, 0).size(), 1);  // a root that is a run
  }
};

QTEST_GUILESS_MAIN(RunStoreTest)
#include "run_store_test.moc"
