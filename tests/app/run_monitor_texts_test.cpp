// The run monitor's header texts (issue 52 item 6), read from a RunModel fed
// with real engine event streams (fixtures/), with no widget and no display:
// what a finished, failed, interrupted, restarted, live and pipeline run say.
#include <QTest>
#include <cmath>
#include <limits>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_model.hpp"
#include "app/runs/run_monitor_texts.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

void feed_lines(RunModel& model, const QList<QByteArray>& lines) {
  EventStreamReader reader(&model);
  for (const QByteArray& line : lines)
    if (!line.isEmpty()) reader.feed(line + '\n');
  reader.finish();
}

QList<QByteArray> fixture_lines(const char* name) {
  return test::read_all(test::fixture(QString::fromLatin1(name) + QStringLiteral("/events.jsonl"))).split('\n');
}

}  // namespace

class RunMonitorTextsTest : public QObject {
  Q_OBJECT

 private slots:
  void no_run_says_so_and_nothing_else() {
    const RunMonitorTexts t = run_monitor_texts(nullptr);
    QCOMPARE(t.title, QStringLiteral("No run"));
    QVERIFY(t.status.isEmpty() && t.step.isEmpty() && t.eta.isEmpty() && t.failure.isEmpty());
    QVERIFY(!t.show_failure && !t.show_restarts && !t.pipeline);
  }

  void a_finished_run_names_its_job_facts_steps_and_duration() {
    RunModel model;
    feed_lines(model, fixture_lines("finished"));
    const RunMonitorTexts t = run_monitor_texts(&model);
    QCOMPARE(t.title, QStringLiteral("quickstart — autoencoder · 1 process(es) · effective batch 2 · cpu"));
    QVERIFY(t.title_tooltip.endsWith(QStringLiteral("quickstart-20261122-090032")));
    QCOMPARE(t.status, QStringLiteral("finished (completed)"));
    QCOMPARE(t.status_colour, QStringLiteral("#2ca02c"));
    QCOMPARE(t.step, QStringLiteral("step 30 / 30"));
    QCOMPARE(t.progress_maximum, 30);
    QCOMPARE(t.progress_value, 30);
    QCOMPARE(t.eta, QStringLiteral("took 40 s"));  // duration_s 39.76
    QVERIFY2(t.throughput.endsWith(model.throughput_unit()) && !t.throughput.startsWith(QStringLiteral("—")),
             qPrintable(t.throughput));
    QVERIFY(t.show_metric_charts && !t.pipeline);
    QVERIFY(!t.show_failure && !t.show_restarts);
    QVERIFY(t.unusable_lines.isEmpty());
  }

  void a_live_run_shows_its_eta_and_blue_badge() {
    QList<QByteArray> lines = fixture_lines("finished");
    while (!lines.isEmpty() && !lines.back().contains("\"type\":\"run_finished\"")) lines.removeLast();
    lines.removeLast();  // the run has not finished yet
    RunModel model;
    feed_lines(model, lines);
    const RunMonitorTexts t = run_monitor_texts(&model);
    QCOMPARE(t.status, QStringLiteral("running"));
    QCOMPARE(t.status_colour, QStringLiteral("#1f77b4"));
    QVERIFY2(t.eta.startsWith(QStringLiteral("ETA ")), qPrintable(t.eta));
    QVERIFY(t.progress_value > 0 && t.progress_value <= t.progress_maximum);
    QCOMPARE(t.step, QStringLiteral("step %1 / 30").arg(model.current_step()));
  }

  void a_failed_run_shows_its_message() {
    RunModel model;
    feed_lines(model, fixture_lines("failed"));
    const RunMonitorTexts t = run_monitor_texts(&model);
    QCOMPARE(t.status, QStringLiteral("failed"));
    QCOMPARE(t.status_colour, QStringLiteral("#d62728"));
    QVERIFY2(t.failure.contains(QStringLiteral("not a NIfTI file")), qPrintable(t.failure));
    QVERIFY(t.show_failure);
    // No run_started: the title falls back to the folder, then to "Starting…".
    QCOMPARE(t.title, QStringLiteral("Starting…"));
    QCOMPARE(t.step, QStringLiteral("step 0"));
    QCOMPARE(t.progress_maximum, 1);
    QCOMPARE(t.throughput, QStringLiteral("— samples/s"));
  }

  void an_interrupted_run_is_unknown_in_grey() {
    RunModel model;
    feed_lines(model, fixture_lines("interrupted"));
    // The stream alone looks running; the run store marks it unknown when
    // no process holds it (as for a run found after a crash).
    model.set_status(RunStatus::unknown);
    const RunMonitorTexts t = run_monitor_texts(&model);
    QCOMPARE(t.status, QStringLiteral("unknown (interrupted?)"));
    QCOMPARE(t.status_colour, QStringLiteral("#7f7f7f"));
  }

  void a_restarted_run_counts_its_restarts() {
    RunModel model;
    feed_lines(model, fixture_lines("restarted"));
    const RunMonitorTexts t = run_monitor_texts(&model);
    QVERIFY(model.restarts() > 0);
    QCOMPARE(t.restarts, QStringLiteral("restarts: %1").arg(model.restarts()));
    QVERIFY(t.show_restarts);
  }

  void a_pipeline_shows_its_stage_and_no_fixed_charts() {
    RunModel model;
    feed_lines(model, fixture_lines("ldm"));
    const RunMonitorTexts t = run_monitor_texts(&model);
    QVERIFY(t.pipeline);
    QVERIFY(!t.show_metric_charts);
    QVERIFY2(t.step.startsWith(QStringLiteral("stage ")) && t.step.endsWith(QStringLiteral("step 24 / 24")),
             qPrintable(t.step));
    QCOMPARE(
        t.step,
        QStringLiteral("stage %1 (%2) · step 24 / 24").arg(model.stages().back().name, model.stages().back().status));
  }

  void unusable_lines_are_counted_by_kind() {
    QList<QByteArray> lines = fixture_lines("finished");
    lines.insert(2, QByteArrayLiteral("not json at all"));
    lines.insert(3,
                 QByteArrayLiteral(R"({"v":1,"type":"from_the_future","time":"2026-11-22T09:00:34.000Z","rank":0})"));
    RunModel model;
    feed_lines(model, lines);
    const RunMonitorTexts t = run_monitor_texts(&model);
    QCOMPARE(t.unusable_lines, QStringLiteral("⚠ unusable lines: 1 not JSON, 1 unknown type"));
    QVERIFY2(t.unusable_lines_tooltip.endsWith(QStringLiteral("(of %1 lines).").arg(model.reader_stats().lines)),
             qPrintable(t.unusable_lines_tooltip));
    QCOMPARE(t.status, QStringLiteral("finished (completed)"));  // the rest was read
  }

  void durations_read_as_seconds_minutes_or_hours() {
    QCOMPARE(duration_text(42), QStringLiteral("42 s"));
    QCOMPARE(duration_text(59.6), QStringLiteral("1 min 0 s"));
    QCOMPARE(duration_text(182), QStringLiteral("3 min 2 s"));
    QCOMPARE(duration_text(7500), QStringLiteral("2 h 5 min"));
    QCOMPARE(duration_text(-1), QStringLiteral("—"));
    QCOMPARE(duration_text(std::numeric_limits<double>::quiet_NaN()), QStringLiteral("—"));
    QCOMPARE(duration_text(std::numeric_limits<double>::infinity()), QStringLiteral("—"));
  }
};

QTEST_GUILESS_MAIN(RunMonitorTextsTest)
#include "run_monitor_texts_test.moc"
