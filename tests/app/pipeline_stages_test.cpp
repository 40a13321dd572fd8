// Issue 23.2: a pipeline run (ldm) as the console follows it live. The
// fixture stream (a real `launch --json` of ldm-tiny) is fed one line at a
// time, as the engine writes it: each stage's own progress moves, the
// pipeline's progress counts every stage's steps, the stages' events never
// change the run's status or directory before its run_finished, and the
// generated images arrive one by one while the run is still running (the
// Samples tab fills during generate, not at the end).
#include <QTest>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/pipeline_stages.hpp"
#include "app/runs/run_model.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

StageProgress progress_of(const RunModel& model, const QString& stage) {
  for (const StageProgress& p : pipeline_progress(model))
    if (p.name == stage) return p;
  return {};
}

bool is_type(const QByteArray& line, const char* type) {
  return line.contains(QByteArrayLiteral("\"type\":\"") + type + '"');
}

}  // namespace

class PipelineStagesTest : public QObject {
  Q_OBJECT

 private slots:
  void a_live_ldm_run_shows_each_stage_and_its_samples_as_they_come() {
    const QList<QByteArray> lines = test::read_all(test::fixture(QStringLiteral("ldm/events.jsonl"))).split('\n');
    QVERIFY(lines.size() > 50);
    RunModel model;
    EventStreamReader reader(&model);
    QString run_dir;
    qint64 last_step = 0;
    int volumes_while_running = 0;
    bool autoencoder_full_before_diffusion = false;
    bool diffusion_moved = false;
    for (const QByteArray& line : lines) {
      if (line.isEmpty()) continue;
      reader.feed(line + '\n');
      if (run_dir.isEmpty()) run_dir = model.run_dir();
      const bool ended = is_type(line, "run_finished");
      if (!ended) {
        QVERIFY2(model.status() == RunStatus::running, line.constData());
        QCOMPARE(model.run_dir(), run_dir);  // a stage's folder never becomes the run's
      }
      QVERIFY(model.current_step() >= last_step);  // progress over all stages only grows
      last_step = model.current_step();
      QCOMPARE(model.total_steps(), 24);
      const StageProgress ae = progress_of(model, QStringLiteral("autoencoder"));
      const StageProgress diffusion = progress_of(model, QStringLiteral("diffusion"));
      QVERIFY(ae.done <= 12 && diffusion.done <= 12);
      if (diffusion.status == QLatin1String("started") && ae.finished && ae.done == 12)
        autoencoder_full_before_diffusion = true;
      if (diffusion.done > 0 && !diffusion.finished) {
        diffusion_moved = true;
        QCOMPARE(diffusion.done, model.current_step() - 12);  // its own steps, not the pipeline's
      }
      if (is_type(line, "artifact") && line.contains(QByteArrayLiteral("\"kind\":\"volume\"")) && !ended) {
        ++volumes_while_running;
        const StageProgress generate = progress_of(model, QStringLiteral("generate"));
        QVERIFY(generate.current);
        QCOMPARE(generate.total, 3);
        QCOMPARE(generate.done, volumes_while_running);
        QCOMPARE(model.artifacts().back().kind, QStringLiteral("volume"));
        QVERIFY(!progress_of(model, QStringLiteral("evaluate")).finished);
      }
    }
    QVERIFY(autoencoder_full_before_diffusion);
    QVERIFY(diffusion_moved);
    QCOMPARE(volumes_while_running, 3);
    QCOMPARE(model.status(), RunStatus::finished);
    QCOMPARE(model.reader_stats().problems(), 0);
    for (const StageProgress& p : pipeline_progress(model)) {
      QVERIFY2(p.finished, qPrintable(p.name));
      QVERIFY2(!p.current, qPrintable(p.name));
    }
    QCOMPARE(progress_of(model, QStringLiteral("autoencoder")).done, 12);
    QCOMPARE(progress_of(model, QStringLiteral("generate")).unit, QStringLiteral("images"));
  }

  void stages_not_begun_are_listed_as_pending() {
    RunModel model;
    EventStreamReader reader(&model);
    const QByteArray stream = test::read_all(test::fixture(QStringLiteral("ldm/events.jsonl")));
    reader.feed(stream.left(stream.indexOf('\n') + 1));  // run_started only
    QVERIFY(is_pipeline(model));
    const auto stages = pipeline_progress(model);
    QCOMPARE(stages.size(), 5);
    for (const StageProgress& p : stages) QCOMPARE(p.status, QStringLiteral("pending"));
    RunModel plain;
    EventStreamReader(&plain).feed(test::read_all(test::fixture(QStringLiteral("finished/events.jsonl"))));
    QVERIFY(!is_pipeline(plain));
    QVERIFY(pipeline_progress(plain).isEmpty());
  }

  void stage_metrics_are_split_by_known_stages_only() {
    const QStringList stages{"autoencoder", "diffusion"};
    const auto ae = split_stage_metric(QStringLiteral("autoencoder/train/loss"), stages);
    QVERIFY(ae.has_value());
    QCOMPARE(ae->stage, QStringLiteral("autoencoder"));
    QCOMPARE(ae->base, QStringLiteral("train/loss"));
    QVERIFY(!split_stage_metric(QStringLiteral("train/loss"), stages));
    QVERIFY(!split_stage_metric(QStringLiteral("eval/mmd"), stages));
    QVERIFY(!split_stage_metric(QStringLiteral("diffusion/"), stages));
    QVERIFY(is_finished_stage_status(QStringLiteral("complete (5 written, 0 present on rank 0)")));
    QVERIFY(is_finished_stage_status(QStringLiteral("skipped (complete)")));
    QVERIFY(!is_finished_stage_status(QStringLiteral("resumed")));
  }
};

QTEST_GUILESS_MAIN(PipelineStagesTest)
#include "pipeline_stages_test.moc"
