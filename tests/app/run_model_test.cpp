// RunModel fed with the event streams and rank logs of real engine runs
// (fixtures/: finished, failed, stopped, interrupted), plus the launcher's
// restart events and the log-deduplication rule.
#include <QSet>
#include <QSignalSpy>
#include <cmath>
#include <QTest>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/rank_log_reader.hpp"
#include "app/runs/run_model.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {
void feed_fixture(RunModel& model, const QString& name) {
  EventStreamReader reader(&model);
  reader.feed(test::read_all(test::fixture(name + QStringLiteral("/events.jsonl"))));
  reader.finish();
}
}  // namespace

class RunModelTest : public QObject {
  Q_OBJECT

 private slots:
  void a_finished_run() {
    RunModel model;
    QSignalSpy status(&model, &RunModel::status_changed);
    QSignalSpy started(&model, &RunModel::run_started);
    QSignalSpy checkpoints(&model, &RunModel::checkpoint_added);
    QSignalSpy artifacts(&model, &RunModel::artifact_added);
    QCOMPARE(model.status(), RunStatus::pending);
    // Line by line, as a live stream arrives: the status goes through running.
    EventStreamReader reader(&model);
    const QList<QByteArray> lines = test::read_all(test::fixture(QStringLiteral("finished/events.jsonl"))).split('\n');
    for (const auto& line : lines) reader.feed(line + '\n');
    reader.finish();

    QCOMPARE(status.size(), 2);
    QCOMPARE(status[0][0].value<RunStatus>(), RunStatus::running);
    QCOMPARE(status[1][0].value<RunStatus>(), RunStatus::finished);
    QCOMPARE(started.size(), 1);
    QCOMPARE(model.job_name(), QStringLiteral("quickstart"));
    QCOMPARE(model.task(), QStringLiteral("autoencoder"));
    QCOMPARE(model.world_size(), 1);
    QCOMPARE(model.effective_batch(), 2);
    QCOMPARE(model.total_steps(), 30);
    QCOMPARE(model.current_step(), 30);
    QCOMPARE(model.finish_reason(), QStringLiteral("completed"));
    QVERIFY(model.started_at().isValid());
    QVERIFY(model.finished_at() > model.started_at());
    QVERIFY(model.duration_seconds() > 0);
    QVERIFY(model.throughput() > 0);
    QCOMPARE(model.eta_seconds() >= 0, true);

    // Series: train/loss every log_every_steps (5), validation at 15 and 30.
    QVERIFY(model.metric_names().contains(QStringLiteral("train/loss")));
    const auto& loss = model.series(QStringLiteral("train/loss"));
    QCOMPARE(loss.size(), 6);
    for (int i = 1; i < loss.size(); ++i) QVERIFY(loss[i].step > loss[i - 1].step);
    const auto& psnr = model.series(QStringLiteral("val/psnr"));
    QCOMPARE(psnr.size(), 2);
    QCOMPARE(psnr[0].step, 15);
    QCOMPARE(psnr[1].step, 30);
    QVERIFY(model.series(QStringLiteral("no/such")).isEmpty());
    // Final metrics: run_finished's, and the last value of the others.
    const auto finals = model.final_metrics();
    QCOMPARE(finals.value(QStringLiteral("val/psnr")), psnr.back().value);
    QCOMPARE(finals.value(QStringLiteral("train/loss")), loss.back().value);

    QVERIFY(!model.checkpoints().isEmpty());
    // One entry per file (issue 38): last.safetensors, written at every
    // checkpoint step, is listed once with its newest step.
    QVERIFY(checkpoints.size() > model.checkpoints().size());
    QSet<QString> paths;
    for (const auto& c : model.checkpoints()) paths.insert(c.path);
    QCOMPARE(paths.size(), model.checkpoints().size());
    qint64 newest_last = 0;
    for (const auto& call : checkpoints) {
      const auto c = call.front().value<CheckpointInfo>();
      if (c.path.endsWith(QStringLiteral("/last.safetensors"))) newest_last = std::max(newest_last, c.step);
    }
    for (const auto& c : model.checkpoints())
      if (c.path.endsWith(QStringLiteral("/last.safetensors"))) QCOMPARE(c.step, newest_last);
    bool best = false;
    for (const auto& c : model.checkpoints()) best = best || (c.kind == QLatin1String("best") && c.metric == QLatin1String("val/psnr"));
    QVERIFY(best);
    QCOMPARE(model.artifacts().size(), 1);
    QCOMPARE(artifacts.size(), 1);
    QCOMPARE(model.artifacts().front().kind, QStringLiteral("reconstruction"));
    QCOMPARE(model.reader_stats().problems(), 0);
    QCOMPARE(model.reader_stats().lines, lines.size() - 1);  // the split leaves one empty tail
  }

  // Issue 38: images a later `generate RUN` made arrive as artifacts after
  // run_finished; each file is listed once, however often it is announced.
  void artifacts_after_the_end_are_listed_once_each() {
    RunModel model;
    EventStreamReader reader(&model);
    QSignalSpy artifacts(&model, &RunModel::artifact_added);
    const QList<QByteArray> lines = test::read_all(test::fixture(QStringLiteral("finished/events.jsonl"))).split('\n');
    for (const auto& line : lines) reader.feed(line + '\n');
    const qsizetype before = model.artifacts().size();
    const QByteArray later =
        R"({"v":1,"type":"artifact","time":"2026-11-27T09:00:00.000Z","rank":0,"path":"/runs/q/output/image_seed9_rank0.nii.gz","kind":"volume","step":1})"
        "\n";
    reader.feed(later);
    reader.feed(later);
    reader.finish();
    QCOMPARE(model.status(), RunStatus::finished);
    QCOMPARE(model.artifacts().size(), before + 1);
    QCOMPARE(model.artifacts().back().path, QStringLiteral("/runs/q/output/image_seed9_rank0.nii.gz"));
    QCOMPARE(artifacts.size(), static_cast<int>(before) + 1);
  }

  void rank_logs_become_log_lines() {
    RunModel model;
    QSignalSpy appended(&model, &RunModel::log_appended);
    RankLogReader reader(&model, 0);
    const QByteArray log = test::read_all(test::fixture(QStringLiteral("finished/logs/rank0.log")));
    reader.feed(log.first(log.size() / 2));  // cut inside a line
    reader.feed(log.sliced(log.size() / 2));
    reader.finish();
    const auto& lines = model.logs(0);
    QCOMPARE(lines.size(), log.count('\n'));
    QCOMPARE(model.log_ranks(), QList<int>{0});
    QCOMPARE(lines.front().level, QStringLiteral("info"));
    QVERIFY(lines.front().message.startsWith(QStringLiteral("training autoencoder")));
    QVERIFY(lines.front().time.isValid());
    QCOMPARE(lines.front().time.timeSpec(), Qt::UTC);
    QCOMPARE(appended.size(), 2);  // one signal per fed chunk

    const auto parsed = parse_rank_log_line(u"2026-11-22 05:31:09.870 [rank 3] WARN step 421: non-finite loss");
    QVERIFY(parsed.has_value());
    QCOMPARE(parsed->rank, 3);
    QCOMPARE(parsed->level, QStringLiteral("warn"));
    QCOMPARE(parsed->message, QStringLiteral("step 421: non-finite loss"));
    QCOMPARE(parsed->time, QDateTime(QDate(2026, 11, 22), QTime(5, 31, 9, 870), Qt::UTC));
    QVERIFY(!parse_rank_log_line(u"  at frame 3 of a stack trace").has_value());
  }

  void log_events_are_dropped_for_a_followed_rank_log() {
    RunModel model;
    EventStreamReader events(&model);
    const QByteArray warn = R"({"v":1,"type":"log","time":"2026-11-22T05:46:24.478Z","rank":0,"level":"warn","message":"slow loader"})" "\n";
    const QByteArray agent = R"({"v":1,"type":"log","time":"2026-11-22T05:46:24.478Z","rank":-1,"level":"error","message":"rank 1 died"})" "\n";
    events.feed(warn);
    QCOMPARE(model.logs(0).size(), 1);
    model.mark_log_file_followed(0);
    events.feed(warn + agent);
    QCOMPARE(model.logs(0).size(), 1);   // the file has it
    QCOMPARE(model.logs(-1).size(), 1);  // the launcher has no file
  }

  void a_failed_run() {
    RunModel model;
    feed_fixture(model, QStringLiteral("failed"));
    QCOMPARE(model.status(), RunStatus::failed);
    QVERIFY2(model.failure_message().contains(QStringLiteral("not a NIfTI file")), qPrintable(model.failure_message()));
    QVERIFY(model.is_terminal());
    QCOMPARE(model.logs(0).size(), 1);
    QCOMPARE(model.logs(0).front().level, QStringLiteral("error"));
  }

  void a_stopped_run() {
    RunModel model;
    feed_fixture(model, QStringLiteral("stopped"));
    QCOMPARE(model.status(), RunStatus::stopped);
    QCOMPARE(model.finish_reason(), QStringLiteral("stopped"));
    QVERIFY(model.current_step() > 0);
    QVERIFY(model.current_step() < model.total_steps());
    bool last = false;
    for (const auto& c : model.checkpoints()) last = last || (c.kind == QLatin1String("last") && c.step > 0);
    QVERIFY(last);
  }

  void an_interrupted_stream_looks_running() {
    // The stream alone cannot tell: RunStore and the launchers decide.
    RunModel model;
    feed_fixture(model, QStringLiteral("interrupted"));
    QCOMPARE(model.status(), RunStatus::running);
    QVERIFY(!model.is_terminal());
    QVERIFY(model.current_step() >= 10);
  }

  void a_launcher_restart_resumes_the_run() {
    RunModel model;
    QSignalSpy restarted(&model, &RunModel::restarted);
    EventStreamReader reader(&model);
    const QByteArray stream = test::read_all(test::fixture(QStringLiteral("interrupted/events.jsonl")));
    reader.feed(stream);
    reader.feed(R"({"v":1,"type":"run_failed","time":"2026-11-22T05:46:25.000Z","rank":0,"error":"runtime","message":"worker lost","exit_code":1})" "\n");
    QCOMPARE(model.status(), RunStatus::failed);
    reader.feed(R"({"v":1,"type":"restart","time":"2026-11-22T05:46:26.000Z","rank":-1,"attempt":1,"reason":"rank 1 exited with code -9"})" "\n");
    QCOMPARE(model.status(), RunStatus::running);
    QCOMPARE(model.restarts(), 1);
    QCOMPARE(restarted.size(), 1);
    QVERIFY(model.failure_message().isEmpty());
    QVERIFY(model.logs(-1).back().message.contains(QStringLiteral("rank 1 exited")));
    reader.feed(stream.first(stream.indexOf('\n') + 1));  // run_started again after the restart
    QCOMPARE(model.status(), RunStatus::running);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);  // kept across the restart
  }

  void clear_forgets_everything() {
    RunModel model;
    feed_fixture(model, QStringLiteral("finished"));
    QSignalSpy cleared(&model, &RunModel::cleared);
    model.clear();
    QCOMPARE(cleared.size(), 1);
    QCOMPARE(model.status(), RunStatus::pending);
    QVERIFY(model.metric_names().isEmpty());
    QVERIFY(model.checkpoints().isEmpty());
    QCOMPARE(model.reader_stats().lines, 0);
  }

  // Issue 19.9: a run's series, logs, metric names and ranks grew without
  // bound (before: 1 000 000 points stayed 1 000 000 points, and so on).
  void limits_bound_what_a_long_or_hostile_run_keeps() {
    RunModel model;
    RunModelLimits limits;
    limits.max_points_per_series = 1000;
    limits.max_log_lines_per_rank = 400;
    limits.max_log_message_chars = 100;
    limits.max_metric_names = 3;
    limits.max_log_ranks = 2;
    model.set_limits(limits);

    const qint64 steps = 1000000;
    for (qint64 step = 1; step <= steps; ++step)
      model.append_metric(QStringLiteral("train/loss"), step, step == 777777 ? std::nan("") : 1.0 / double(step), step != 777777);
    const auto& loss = model.series(QStringLiteral("train/loss"));
    QVERIFY2(loss.size() <= limits.max_points_per_series, qPrintable(QString::number(loss.size())));
    QVERIFY(loss.size() >= limits.max_points_per_series / 2);
    QCOMPARE(loss.front().step, 1);
    QCOMPARE(loss.back().step, steps);
    bool nan_kept = false;
    for (int i = 0; i < loss.size(); ++i) {
      if (i > 0) QVERIFY(loss[i].step > loss[i - 1].step);
      nan_kept = nan_kept || (loss[i].step == 777777 && !loss[i].finite);
    }
    QVERIFY2(nan_kept, "a non-finite point is never thinned away");

    for (int n = 0; n < 10; ++n) model.append_metric(QStringLiteral("hostile/%1").arg(n), 1, 1.0, true);
    QCOMPARE(model.metric_names().size(), limits.max_metric_names);

    QSignalSpy appended(&model, &RunModel::log_appended);
    const QString long_message(1 << 20, QLatin1Char('x'));  // 1 Mi characters on one line
    for (int n = 0; n < 100000; ++n) model.append_log({QDateTime(), 0, QStringLiteral("info"), n == 99999 ? long_message : QString::number(n)});
    const auto& lines = model.logs(0);
    QVERIFY2(lines.size() <= limits.max_log_lines_per_rank, qPrintable(QString::number(lines.size())));
    QCOMPARE(lines[lines.size() - 2].message, QStringLiteral("99998"));  // the newest lines stay, in order
    QVERIFY(lines.back().message.size() < 200);
    QVERIFY(lines.back().message.endsWith(QStringLiteral("[1048476 characters cut]")));
    bool told_to_rebuild = false;  // a view that keeps an index learns that the lines moved
    for (const auto& call : appended) told_to_rebuild = told_to_rebuild || call[1].toInt() == 0;
    QVERIFY(told_to_rebuild);
    for (int rank = 1; rank < 50; ++rank) model.append_log({QDateTime(), rank, QStringLiteral("info"), QStringLiteral("hello")});
    QCOMPARE(model.log_ranks().size(), limits.max_log_ranks);
    QVERIFY(model.dropped_by_limits() > steps / 2);
  }

  void summary_mode_keeps_only_last_points() {
    RunModel model(nullptr, /*keep_history=*/false);
    feed_fixture(model, QStringLiteral("finished"));
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 1);
    QCOMPARE(model.series(QStringLiteral("train/loss")).front().step, 30);
  }
};

QTEST_GUILESS_MAIN(RunModelTest)
#include "run_model_test.moc"
