// LaunchCoordinator and RunController without a display (issue 23: launch
// orchestration lives in app/): a launch of the job being edited through a
// scripted engine that replays a real ldm pipeline's `launch --json` stream
// at the pace of a run, so the run is live while its stages advance and its
// images arrive; one live run at a time; opening run directories; and the
// event stream of any other launcher (the SSH and SLURM launchers feed theirs
// through the same Launcher::feed_event_stream) read the same way.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/jobs/job_document.hpp"
#include "app/session/launch_coordinator.hpp"
#include "app/session/run_controller.hpp"
#include "app/runs/pipeline_stages.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

// A launcher whose "engine" is this test: the stream is handed over in
// chunks, as a cluster launcher hands over what it read from a node.
class ReplayLauncher : public Launcher {
 public:
  void start(const LaunchRequest&) override {
    running_ = true;
    model_.clear();
    begin_event_stream();
    emit started();
  }
  void stop() override {}
  bool is_running() const override { return running_; }
  void deliver(QByteArrayView chunk) { feed_event_stream(chunk); }
  void end(int exit_code) {
    end_event_stream();
    running_ = false;
    emit finished(exit_code, model_.status());
  }

 private:
  bool running_ = false;
};

QString ldm_stream() { return test::fixture(QStringLiteral("ldm/events.jsonl")); }

}  // namespace

class LaunchCoordinatorTest : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;

  // An engine that prints the recorded stream a line every few ms, then exits 0.
  QString replaying_engine() {
    const QString path = tmp_.filePath(QStringLiteral("replaying-engine"));
    const QByteArray script = "#!/bin/sh\nwhile IFS= read -r line; do printf '%s\\n' \"$line\"; sleep 0.01; done < '" +
                              ldm_stream().toUtf8() + "'\nexit 0\n";
    if (!test::write_all(path, script)) return {};
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
  }

 private slots:
  void a_launched_pipeline_is_live_while_its_stages_and_samples_arrive() {
    JobDocument document;
    QString error;
    QVERIFY2(document.load(test::source_dir() + QStringLiteral("/resources/jobs/ldm-tiny.yaml"), &error),
             qPrintable(error));
    LaunchCoordinator coordinator(&document, nullptr);
    LocalLauncherOptions engine;
    engine.engine = replaying_engine();
    engine.follow_rank_logs = false;
    coordinator.set_launcher_options(engine);
    coordinator.set_runs_dir(tmp_.filePath(QStringLiteral("runs")));
    QSignalSpy opened(&coordinator, &LaunchCoordinator::run_opened);
    QSignalSpy ended(&coordinator, &LaunchCoordinator::run_ended);
    QSignalSpy errors(&coordinator, &LaunchCoordinator::error_message);

    RunController* run = coordinator.launch(LaunchOptions{});
    QVERIFY2(run, errors.isEmpty() ? "" : qPrintable(errors.front().front().toString()));
    QCOMPARE(opened.size(), 1);
    QCOMPARE(coordinator.active(), run);
    QCOMPARE(run->source(), RunController::Source::launched);
    // One live run at a time.
    QVERIFY(!coordinator.launch(LaunchOptions{}));
    QVERIFY(errors.last().front().toString().contains(QLatin1String("in progress")));

    int samples_while_live = 0;
    bool stage_progress_while_live = false;
    connect(run->model(), &RunModel::artifact_added, this, [&](const Artifact& a) {
      if (a.kind == QLatin1String("volume") && run->is_live() && run->model()->status() == RunStatus::running)
        ++samples_while_live;
    });
    connect(run->model(), &RunModel::progress_changed, this, [&] {
      for (const StageProgress& p : pipeline_progress(*run->model()))
        if (p.name == QLatin1String("diffusion") && p.done > 0 && !p.finished && run->is_live())
          stage_progress_while_live = true;
    });
    QVERIFY(ended.wait(60000));
    QCOMPARE(ended.front().at(1).value<RunStatus>(), RunStatus::finished);
    QCOMPARE(samples_while_live, 3);
    QVERIFY(stage_progress_while_live);
    QVERIFY(!coordinator.active());
    QVERIFY(run->run_dir().contains(QLatin1String("/ldm-tiny-")));
    QCOMPARE(run->model()->reader_stats().problems(), 0);
    QVERIFY(coordinator.close_run(run));
  }

  void open_run_follows_a_directory_once() {
    LaunchCoordinator coordinator(nullptr, nullptr);
    QSignalSpy opened(&coordinator, &LaunchCoordinator::run_opened);
    QSignalSpy errors(&coordinator, &LaunchCoordinator::error_message);
    const QString dir = tmp_.filePath(QStringLiteral("followed"));
    QVERIFY(test::copy_run(test::fixture(QStringLiteral("vqgan")), dir));
    RunController* run = coordinator.open_run(dir);
    QVERIFY(run);
    QCOMPARE(run->source(), RunController::Source::followed);
    QVERIFY(!run->is_live());
    QCOMPARE(coordinator.open_run(dir + QStringLiteral("/")), run);  // the same directory: the same run
    QCOMPARE(opened.size(), 2);
    QCOMPARE(coordinator.runs().size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(run->model()->status(), RunStatus::finished, 10000);
    QVERIFY(!coordinator.open_run(dir + QStringLiteral("/events.jsonl")));
    QCOMPARE(errors.size(), 1);
    QVERIFY(coordinator.close_run(run));
    QVERIFY(coordinator.runs().isEmpty());
  }

  // What a cluster launcher reads (node 0's stdout over SSH, SLURM's events
  // file) reaches the model through Launcher::feed_event_stream, as a local
  // process's stdout does: the ldm stream in odd-sized chunks gives the model
  // the stream read whole gives.
  void any_launcher_reads_the_pipeline_stream_the_same_way() {
    LaunchRequest request;
    request.job_file = test::source_dir() + QStringLiteral("/resources/jobs/ldm-tiny.yaml");
    auto owned = std::make_unique<ReplayLauncher>();
    ReplayLauncher* launcher = owned.get();
    RunController run(request, std::move(owned));
    QSignalSpy finished(&run, &RunController::finished);
    run.start();
    QVERIFY(run.is_live());
    const QByteArray stream = test::read_all(ldm_stream());
    int volumes_live = 0;
    for (qsizetype pos = 0; pos < stream.size(); pos += 977) {
      const qsizetype before = run.model()->artifacts().size();
      launcher->deliver(QByteArrayView(stream).sliced(pos, std::min<qsizetype>(977, stream.size() - pos)));
      for (qsizetype i = before; i < run.model()->artifacts().size(); ++i)
        if (run.model()->artifacts()[i].kind == QLatin1String("volume") && run.model()->status() == RunStatus::running)
          ++volumes_live;
    }
    launcher->end(0);
    QCOMPARE(finished.size(), 1);
    RunModel whole;
    EventStreamReader(&whole).feed(stream);
    const RunModel& m = *run.model();
    QCOMPARE(m.status(), RunStatus::finished);
    QCOMPARE(m.run_dir(), whole.run_dir());
    QCOMPARE(m.current_step(), whole.current_step());
    QCOMPARE(m.metric_names(), whole.metric_names());
    QCOMPARE(m.artifacts().size(), whole.artifacts().size());
    QCOMPARE(pipeline_stage_names(m), pipeline_stage_names(whole));
    QVERIFY(volumes_live >= 2);  // chunks of ~1 kB: images arrive in different chunks, before run_finished
    QCOMPARE(m.reader_stats().problems(), 0);
  }
};

QTEST_GUILESS_MAIN(LaunchCoordinatorTest)
#include "launch_coordinator_test.moc"
