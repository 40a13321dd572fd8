// EventStreamReader against everything RELIABILITY 26 lists: every split
// point of a real stream, invalid JSON, unknown types, huge lines below and
// above the cap, invalid UTF-8, null + nonfinite, a newer `v`, missing and
// wrong-typed fields, a truncated last line. Each case checks the counters and
// that the good events around the garbage were applied.
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>
#include <cmath>

#include "app/runs/event_stream_reader.hpp"
#include "app/runs/run_model.hpp"
#include "app_test_support.hpp"
#include "contract/event_schema.hpp"

using namespace medsynth::app;

namespace {

QByteArray metric(qint64 step, const char* name, double value) {
  return QStringLiteral(R"({"v":1,"type":"metric","time":"2026-11-22T05:46:24.478Z","rank":0,"step":%1,"name":"%2","value":%3})")
             .arg(step)
             .arg(QString::fromUtf8(name))
             .arg(value, 0, 'g', 17)
             .toUtf8() +
         '\n';
}

QByteArray log_event(const QByteArray& message) {
  return R"({"v":1,"type":"log","time":"2026-11-22T05:46:24.478Z","rank":0,"level":"warn","message":")" + message + "\"}\n";
}

// Everything a reader can change in a model, as text, to compare two models.
QString snapshot(const RunModel& m) {
  QString s;
  QTextStream out(&s);
  out << to_string(m.status()) << '|' << m.job_name() << '|' << m.task() << '|' << m.world_size() << '|' << m.effective_batch()
      << '|' << m.total_steps() << '|' << m.current_step() << '|' << m.throughput() << '|' << m.eta_seconds() << '|'
      << m.failure_message() << '|' << m.finish_reason() << '|' << m.restarts() << '\n';
  for (const auto& name : m.metric_names()) {
    out << name << ':';
    for (const auto& p : m.series(name)) out << p.step << '=' << p.value << (p.finite ? "" : "!") << ',';
    out << '\n';
  }
  for (int rank : m.log_ranks())
    for (const auto& l : m.logs(rank)) out << rank << ' ' << l.level << ' ' << l.message << '\n';
  for (const auto& c : m.checkpoints()) out << "ckpt " << c.kind << ' ' << c.step << ' ' << c.path << '\n';
  for (const auto& a : m.artifacts()) out << "artifact " << a.kind << ' ' << a.step << ' ' << a.path << '\n';
  const auto st = m.reader_stats();
  out << "stats " << st.lines << ' ' << st.invalid_json << ' ' << st.unknown_types << ' ' << st.oversized << ' '
      << st.missing_fields << ' ' << st.newer_version << ' ' << st.invalid_utf8 << '\n';
  return s;
}

// An event of `type` with the envelope only (moc misreads raw strings inside the class).
QByteArray bare_event(std::string_view type) {
  return QByteArray(R"({"v":1,"type":")") + QByteArray(type.data(), static_cast<qsizetype>(type.size())) +
         R"(","time":"2026-11-22T05:46:24.478Z","rank":0})" + "\n";
}

// The run directory the first run_started of a stream names ("" if none).
QString first_run_dir(const QByteArray& stream) {
  const QByteArray key = QByteArrayLiteral("\"run_dir\":\"");
  const qsizetype at = stream.indexOf(key);
  if (at < 0) return {};
  const qsizetype start = at + key.size();
  return QString::fromUtf8(stream.mid(start, stream.indexOf('"', start) - start));
}

}  // namespace

class EventStreamReaderTest : public QObject {
  Q_OBJECT

 private slots:
  void every_split_point_gives_the_same_model() {
    const QByteArray stream = test::read_all(test::fixture(QStringLiteral("finished/events.jsonl")));
    QVERIFY(stream.size() > 1000);
    RunModel whole;
    EventStreamReader(&whole).feed(stream);
    QCOMPARE(whole.status(), RunStatus::finished);
    QCOMPARE(whole.reader_stats().problems(), 0);
    const QString expected = snapshot(whole);
    for (qsizetype i = 0; i <= stream.size(); ++i) {
      RunModel model;
      EventStreamReader reader(&model);
      reader.feed(QByteArrayView(stream).first(i));
      reader.feed(QByteArrayView(stream).sliced(i));
      reader.finish();
      if (snapshot(model) != expected) QFAIL(qPrintable(QStringLiteral("split at byte %1 differs").arg(i)));
    }
    // And one byte at a time.
    RunModel bytewise;
    EventStreamReader reader(&bytewise);
    for (char c : stream) reader.feed(QByteArrayView(&c, 1));
    reader.finish();
    QCOMPARE(snapshot(bytewise), expected);
  }

  void invalid_json_is_counted_and_skipped() {
    RunModel model;
    EventStreamReader reader(&model);
    reader.feed(metric(1, "train/loss", 0.5) + "this is not json\n" + R"({"v":1,"type":"metric","step":2,)" + "\n" +
                "[1,2,3]\n" + "42\n" + metric(3, "train/loss", 0.25));
    const auto st = model.reader_stats();
    QCOMPARE(st.lines, 6);
    QCOMPARE(st.invalid_json, 4);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
    QCOMPARE(model.series(QStringLiteral("train/loss")).back().value, 0.25);
  }

  void unknown_types_are_counted_and_ignored() {
    RunModel model;
    EventStreamReader reader(&model);
    reader.feed(metric(1, "lr", 1e-4) + R"({"v":1,"type":"gpu_temperature","time":"x","rank":0,"celsius":71})" + "\n" +
                metric(2, "lr", 2e-4));
    QCOMPARE(model.reader_stats().unknown_types, 1);
    QCOMPARE(model.reader_stats().problems(), 1);
    QCOMPARE(model.series(QStringLiteral("lr")).size(), 2);
  }

  void a_ten_megabyte_line_below_the_cap_is_read() {
    RunModel model;
    EventStreamReader reader(&model);  // default cap 16 MiB
    const QByteArray huge(10 * 1024 * 1024, 'x');
    const QByteArray stream = metric(1, "train/loss", 1.0) + log_event(huge) + metric(2, "train/loss", 0.5);
    for (qsizetype pos = 0; pos < stream.size(); pos += 256 * 1024) reader.feed(QByteArrayView(stream).sliced(pos, std::min<qsizetype>(256 * 1024, stream.size() - pos)));
    QCOMPARE(model.reader_stats().oversized, 0);
    QCOMPARE(model.logs(0).size(), 1);
    // Read whole, then stored cut to the model's limit (RunModelLimits), saying how much.
    const QString& message = model.logs(0).front().message;
    const int kept = model.limits().max_log_message_chars;
    QCOMPARE(message.left(kept), QString(kept, QLatin1Char('x')));
    QVERIFY(message.endsWith(QStringLiteral("[%1 characters cut]").arg(huge.size() - kept)));
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
  }

  void a_line_above_the_cap_is_skipped_without_buffering_it() {
    RunModel model;
    EventStreamReader reader(&model, {.max_line_bytes = 1024 * 1024});
    const QByteArray huge(10 * 1024 * 1024, 'x');
    const QByteArray stream = metric(1, "train/loss", 1.0) + log_event(huge) + metric(2, "train/loss", 0.5);
    qsizetype most_buffered = 0;
    for (qsizetype pos = 0; pos < stream.size(); pos += 64 * 1024) {
      reader.feed(QByteArrayView(stream).sliced(pos, std::min<qsizetype>(64 * 1024, stream.size() - pos)));
      most_buffered = std::max(most_buffered, reader.buffered_bytes());
    }
    reader.finish();
    QVERIFY2(most_buffered <= 1024 * 1024, qPrintable(QString::number(most_buffered)));
    QCOMPARE(model.reader_stats().oversized, 1);
    QCOMPARE(model.reader_stats().lines, 3);
    QCOMPARE(model.logs(0).size(), 0);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
    // In one chunk, too.
    RunModel again;
    EventStreamReader one(&again, {.max_line_bytes = 1024 * 1024});
    one.feed(stream);
    QCOMPARE(again.reader_stats().oversized, 1);
    QCOMPARE(again.series(QStringLiteral("train/loss")).size(), 2);
  }

  void invalid_utf8_is_replaced_and_read() {
    RunModel model;
    EventStreamReader reader(&model);
    reader.feed(metric(1, "train/loss", 1.0) + log_event("file \xff\xfe.nii.gz unreadable") +
                R"({"v":1,"type":"metric","step":2,"name":"val/ps)" + QByteArray("\xc3") + R"(nr","value":3.5})" + "\n" +
                metric(3, "train/loss", 0.5));
    const auto st = model.reader_stats();
    QCOMPARE(st.invalid_utf8, 2);
    QCOMPARE(st.invalid_json, 0);
    QCOMPARE(model.logs(0).size(), 1);
    QVERIFY(model.logs(0).front().message.contains(QChar(0xFFFD)));
    QVERIFY(model.logs(0).front().message.endsWith(QStringLiteral(".nii.gz unreadable")));
    QCOMPARE(model.metric_names().size(), 2);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
  }

  void null_with_nonfinite_marks_the_point() {
    RunModel model;
    EventStreamReader reader(&model);
    auto null_metric = [](int step, const char* marker) {
      QByteArray line = R"({"v":1,"type":"metric","time":"t","rank":0,"step":)" + QByteArray::number(step) + R"(,"name":"train/loss","value":null)";
      if (marker) line += QByteArray(",\"nonfinite\":\"") + marker + '"';
      return line + "}\n";
    };
    reader.feed(metric(1, "train/loss", 0.5) + null_metric(2, "nan") + null_metric(3, "inf") + null_metric(4, "-inf") +
                null_metric(5, nullptr) + metric(6, "train/loss", 0.4) +
                R"({"v":1,"type":"run_finished","time":"2026-11-22T05:46:24.478Z","rank":0,"status":"completed","metrics":{"val/psnr":null,"val/ssim":0.9},"duration_s":3})" + "\n");
    const auto& s = model.series(QStringLiteral("train/loss"));
    QCOMPARE(s.size(), 6);
    QVERIFY(s[0].finite);
    QVERIFY(!s[1].finite && std::isnan(s[1].value));
    QVERIFY(!s[2].finite && std::isinf(s[2].value) && s[2].value > 0);
    QVERIFY(!s[3].finite && std::isinf(s[3].value) && s[3].value < 0);
    QVERIFY(!s[4].finite && std::isnan(s[4].value));
    QVERIFY(s[5].finite);
    QCOMPARE(model.reader_stats().problems(), 0);
    QVERIFY(std::isnan(model.final_metrics().value(QStringLiteral("val/psnr"))));
    QCOMPARE(model.final_metrics().value(QStringLiteral("val/ssim")), 0.9);
    QCOMPARE(model.status(), RunStatus::finished);
  }

  void a_newer_version_is_counted_and_read() {
    RunModel model;
    EventStreamReader reader(&model);
    reader.feed(metric(1, "train/loss", 0.5) +
                R"({"v":2,"type":"metric","time":"t","rank":0,"step":2,"name":"train/loss","value":0.4,"unit":"nats","shard":{"id":3}})" + "\n" +
                R"({"v":2,"type":"metric","time":"t","rank":0,"step":3,"tag":"train/loss","scalar":0.3})" + "\n");
    QCOMPARE(model.reader_stats().newer_version, 2);
    QCOMPARE(model.reader_stats().missing_fields, 1);  // the renamed fields of the last one
    QVERIFY(model.written_by_newer_engine());
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
  }

  void missing_or_wrong_typed_fields_are_counted() {
    RunModel model;
    EventStreamReader reader(&model);
    reader.feed(metric(1, "train/loss", 0.5) +
                R"({"v":1,"type":"metric","time":"t","rank":0,"step":2,"name":"train/loss"})" + "\n" +             // no value
                R"({"v":1,"type":"metric","time":"t","rank":0,"step":3,"name":"train/loss","value":"0.1"})" + "\n" +  // string value
                R"({"v":1,"type":"metric","time":"t","rank":0,"step":4.5,"name":"train/loss","value":0.1})" + "\n" +  // fractional step
                R"({"v":1,"type":"progress","time":"t","rank":0,"total_steps":10})" + "\n" +                        // no step
                R"({"v":1,"time":"t","rank":0,"step":5})" + "\n" +                                                   // no type
                R"({"v":1,"type":"checkpoint","time":"t","rank":0,"step":5,"kind":"last"})" + "\n" +                 // no path
                metric(6, "train/loss", 0.25));
    QCOMPARE(model.reader_stats().missing_fields, 6);
    QCOMPARE(model.reader_stats().invalid_json, 0);
    const auto& s = model.series(QStringLiteral("train/loss"));
    QCOMPARE(s.size(), 2);
    QCOMPARE(s.front().step, 1);
    QCOMPARE(s.back().step, 6);
    QVERIFY(model.checkpoints().isEmpty());
  }

  void finish_counts_a_partial_last_line_without_applying_it() {
    RunModel model;
    EventStreamReader reader(&model);
    QByteArray partial = metric(3, "train/loss", 0.1);
    partial.chop(1);  // complete JSON, but the newline never came: the writer was cut
    reader.feed(metric(1, "train/loss", 0.5) + metric(2, "train/loss", 0.4) + partial);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
    QCOMPARE(model.reader_stats().lines, 2);
    reader.finish();
    QCOMPARE(model.reader_stats().lines, 3);
    QCOMPARE(model.reader_stats().invalid_json, 1);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 2);
    QCOMPARE(reader.buffered_bytes(), 0);
  }

  void crlf_and_blank_lines_are_fine() {
    RunModel model;
    EventStreamReader reader(&model);
    QByteArray a = metric(1, "lr", 0.1), b = metric(2, "lr", 0.2);
    a.insert(a.size() - 1, '\r');
    reader.feed(a + "\n   \n" + b);
    QCOMPARE(model.series(QStringLiteral("lr")).size(), 2);
    QCOMPARE(model.reader_stats().problems(), 0);
  }

  void signals_are_batched_per_chunk() {
    RunModel model;
    EventStreamReader reader(&model);
    QSignalSpy metrics(&model, &RunModel::metric_appended);
    QSignalSpy stats(&model, &RunModel::stats_changed);
    QByteArray chunk;
    for (int i = 0; i < 500; ++i) chunk += metric(i, "train/loss", 1.0 / (i + 1)) + metric(i, "lr", 1e-4);
    reader.feed(chunk);
    QCOMPARE(metrics.size(), 2);
    QCOMPARE(metrics[0][0].toString(), QStringLiteral("train/loss"));
    QCOMPARE(metrics[0][1].toInt(), 0);
    QCOMPARE(stats.size(), 1);
    reader.feed(metric(500, "train/loss", 0.001) + metric(501, "train/loss", 0.0009));
    QCOMPARE(metrics.size(), 3);
    QCOMPARE(metrics[2][1].toInt(), 500);  // the first new index of that series
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 502);
  }

  // Issue 23.1, one contract: every type of engine/events/event_schema.hpp
  // (the only types EventWriter writes) is known to the reader. A type added
  // to the schema but not to the reader fails here.
  void every_schema_type_is_known_to_the_reader() {
    for (std::string_view type : medsynth::event_schema::k_types) {
      RunModel model;
      EventStreamReader reader(&model);
      reader.feed(bare_event(type));
      QVERIFY2(model.reader_stats().unknown_types == 0, type.data());
    }
    QCOMPARE(EventStreamReader::k_known_version, medsynth::event_schema::k_version);
  }

  // Issue 23: real streams of every workflow (fixtures/make_fixtures.sh runs
  // the engine): an autoencoder run finished, failed, stopped and SIGKILLed; a
  // launch whose worker was killed and restarted; vqgan and survival runs; an
  // ldm pipeline through `launch --json` with all its stages; an ldm run with
  // its evaluate stage and `evaluate`'s own stream with a memorization event.
  // Each is read with no unknown or unusable line, ends in the right status,
  // and keeps the run directory its first run_started named.
  void real_streams_of_every_workflow_read_without_unusable_lines() {
    struct Case {
      const char* stream;
      RunStatus status;
      const char* run_dir_prefix;  // the run directory's name starts with it ("": none named)
      int restarts = 0;
    };
    const Case cases[] = {
        {"finished/events.jsonl", RunStatus::finished, "quickstart-"},
        {"failed/events.jsonl", RunStatus::failed, ""},  // failed before run_started: no run directory named
        {"stopped/events.jsonl", RunStatus::stopped, "quickstart-"},
        {"interrupted/events.jsonl", RunStatus::running,
         "quickstart-"},  // the stream just ends; RunStore decides later
        {"restarted/events.jsonl", RunStatus::finished, "quickstart-", 1},
        {"vqgan/events.jsonl", RunStatus::finished, "vqgan-tiny-"},
        {"survival/events.jsonl", RunStatus::finished, "survival-tiny-"},
        {"ldm/events.jsonl", RunStatus::finished, "ldm-tiny-"},
        {"evaluated/events.jsonl", RunStatus::finished, "ldm-tiny-"},
        {"evaluated/evaluation/events.jsonl", RunStatus::running, ""},  // metrics only: no run_started, no end
    };
    for (const Case& c : cases) {
      const QByteArray stream = test::read_all(test::fixture(QLatin1String(c.stream)));
      RunModel model;
      EventStreamReader reader(&model);
      reader.feed(stream);
      reader.finish();
      const auto st = model.reader_stats();
      QVERIFY2(st.lines > 0, c.stream);
      QVERIFY2(st.unknown_types == 0 && st.missing_fields == 0 && st.newer_version == 0 && st.oversized == 0 &&
                   st.invalid_utf8 == 0,
               c.stream);
      // A SIGKILLed writer may leave one cut last line; nothing else may be broken.
      QVERIFY2(st.invalid_json <= (QLatin1String(c.stream).startsWith(QLatin1String("interrupted")) ? 1 : 0), c.stream);
      QVERIFY2(model.status() == c.status,
               qPrintable(QStringLiteral("%1: %2").arg(c.stream, to_string(model.status()))));
      QCOMPARE(model.restarts(), c.restarts);
      // The run directory is the one the first run_started named, whatever
      // came after it (a restart, a stage's events).
      QCOMPARE(model.run_dir(), first_run_dir(stream));
      QVERIFY2(QFileInfo(model.run_dir()).fileName().startsWith(QLatin1String(c.run_dir_prefix)),
               qPrintable(model.run_dir()));
    }
  }

  // Issue 23.2: an ldm pipeline's stages, seen through the pipeline's stream:
  // the stages' own run_started/run_finished stay in their folders; their
  // metrics ("<stage>/name") and progress (over all stages) arrive here.
  void an_ldm_stream_is_one_run_with_its_stages() {
    RunModel ldm;
    EventStreamReader reader(&ldm);
    reader.feed(test::read_all(test::fixture(QStringLiteral("ldm/events.jsonl"))));
    QCOMPARE(ldm.status(), RunStatus::finished);
    QVERIFY2(
        !ldm.run_dir().endsWith(QLatin1String("/autoencoder")) && !ldm.run_dir().endsWith(QLatin1String("/diffusion")),
        qPrintable(ldm.run_dir()));
    QCOMPARE(ldm.total_steps(), 24);  // 12 autoencoder + 12 diffusion steps
    QCOMPARE(ldm.current_step(), 24);
    for (const char* metric : {"autoencoder/train/loss", "autoencoder/val/psnr", "autoencoder/val/ssim",
                               "diffusion/train/loss", "diffusion/val/diffusion_loss", "eval/ms_ssim_fidelity"})
      QVERIFY2(ldm.metric_names().contains(QLatin1String(metric)), metric);
    const QStringList planned{"autoencoder", "encode", "diffusion", "generate", "evaluate"};
    QCOMPARE(ldm.planned_stages(), planned);
    QStringList seen;
    for (const auto& s : ldm.stages()) seen << s.name;
    QCOMPARE(seen, planned);
    QCOMPARE(ldm.stages()[0].steps, 12);
    QCOMPARE(ldm.stages()[2].first_step, 12);
    QCOMPARE(ldm.stages()[3].images, 3);
    QCOMPARE(ldm.stages()[3].volumes, 3);
    QCOMPARE(ldm.stages().back().status, QStringLiteral("complete"));

    RunModel evaluated;
    EventStreamReader old_engine(&evaluated);  // written before stage events carried steps
    old_engine.feed(test::read_all(test::fixture(QStringLiteral("evaluated/events.jsonl"))));
    QCOMPARE(evaluated.stages().size(), 5);
    QCOMPARE(evaluated.stages()[0].steps, -1);
    RunModel evaluation;
    EventStreamReader eval_reader(&evaluation);
    eval_reader.feed(test::read_all(test::fixture(QStringLiteral("evaluated/evaluation/events.jsonl"))));
    bool memorization_logged = false;
    for (const auto& line : evaluation.logs(-1)) memorization_logged = memorization_logged || line.message.contains(QLatin1String("image_planted_copy"));
    QVERIFY(memorization_logged);
  }
};

QTEST_GUILESS_MAIN(EventStreamReaderTest)
#include "event_stream_reader_test.moc"
