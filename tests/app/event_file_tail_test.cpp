// EventFileTail following a run directory that does not exist yet, grows
// (lines cut anywhere), gains rank logs, is truncated and is replaced.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

#include "app/runs/event_file_tail.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

namespace {

EventFileTailOptions fast() {
  EventFileTailOptions o;
  o.poll_interval_ms = 20;
  return o;
}

QByteArray metric(qint64 step, double value) {
  return QStringLiteral(R"({"v":1,"type":"metric","time":"2026-11-22T05:46:24.478Z","rank":0,"step":%1,"name":"train/loss","value":%2})")
             .arg(step)
             .arg(value)
             .toUtf8() +
         '\n';
}

}  // namespace

class EventFileTailTest : public QObject {
  Q_OBJECT

 private slots:
  void follows_a_run_directory_from_before_it_exists() {
    QTemporaryDir tmp;
    const QString run = tmp.filePath(QStringLiteral("ae-20261122-053102"));
    RunModel model;
    EventFileTail tail(&model, fast());
    QSignalSpy polled(&tail, &EventFileTail::polled);
    tail.start(run);
    QVERIFY(tail.is_running());
    QVERIFY(polled.wait(5000));  // polled a directory that is not there: no harm
    QCOMPARE(model.reader_stats().lines, 0);

    const QByteArray events = test::read_all(test::fixture(QStringLiteral("finished/events.jsonl")));
    const qsizetype cut = events.size() / 3 + 7;  // inside a line
    QVERIFY(test::write_all(run + "/events.jsonl", events.first(cut)));
    QTRY_VERIFY_WITH_TIMEOUT(model.status() == RunStatus::running, 5000);
    QVERIFY(model.series(QStringLiteral("train/loss")).size() < 6);
    QVERIFY(test::write_all(run + "/events.jsonl", events.sliced(cut), QIODevice::Append));
    QTRY_COMPARE_WITH_TIMEOUT(model.status(), RunStatus::finished, 5000);
    QCOMPARE(model.series(QStringLiteral("train/loss")).size(), 6);
    QCOMPARE(model.reader_stats().problems(), 0);

    // Rank logs appear later; both are followed, and log events of a followed rank are not doubled.
    QVERIFY(test::write_all(run + "/logs/rank0.log", test::read_all(test::fixture(QStringLiteral("finished/logs/rank0.log")))));
    QVERIFY(test::write_all(run + "/logs/rank1.log", "2026-11-22 05:31:02.123 [rank 1] INFO joined\n"));
    QTRY_COMPARE_WITH_TIMEOUT(model.log_ranks(), (QList<int>{0, 1}), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(model.logs(0).size(), 4, 5000);
    QVERIFY(test::write_all(run + "/events.jsonl",
                            R"({"v":1,"type":"log","time":"2026-11-22T05:46:24.478Z","rank":0,"level":"warn","message":"late"})" "\n" + metric(31, 0.1),
                            QIODevice::Append));
    QTRY_COMPARE_WITH_TIMEOUT(model.series(QStringLiteral("train/loss")).size(), 7, 5000);
    QCOMPARE(model.logs(0).size(), 4);
    tail.stop();
    QVERIFY(!tail.is_running());
  }

  void a_truncated_file_is_read_again() {
    QTemporaryDir tmp;
    RunModel model;
    EventFileTail tail(&model, fast());
    QSignalSpy replaced(&tail, &EventFileTail::file_replaced);
    QVERIFY(test::write_all(tmp.filePath("events.jsonl"), metric(1, 0.5) + metric(2, 0.4) + metric(3, 0.3)));
    tail.start(tmp.path());
    QTRY_COMPARE_WITH_TIMEOUT(model.series(QStringLiteral("train/loss")).size(), 3, 5000);
    // Same file (same inode), shorter: truncated and rewritten.
    QVERIFY(test::write_all(tmp.filePath("events.jsonl"), metric(10, 0.9), QIODevice::WriteOnly | QIODevice::Truncate));
    QTRY_COMPARE_WITH_TIMEOUT(replaced.size(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(model.series(QStringLiteral("train/loss")).size(), 1, 5000);
    QCOMPARE(model.series(QStringLiteral("train/loss")).front().step, 10);
  }

  void a_replaced_file_is_read_from_the_start() {
    QTemporaryDir tmp;
    RunModel model;
    EventFileTail tail(&model, fast());
    QSignalSpy replaced(&tail, &EventFileTail::file_replaced);
    QVERIFY(test::write_all(tmp.filePath("events.jsonl"), metric(1, 0.5)));
    tail.start(tmp.path());
    QTRY_COMPARE_WITH_TIMEOUT(model.series(QStringLiteral("train/loss")).size(), 1, 5000);
    // A new file renamed over the old one (longer, so only the inode tells).
    QVERIFY(test::write_all(tmp.filePath("events.new"), metric(7, 0.7) + metric(8, 0.6) + metric(9, 0.5)));
    QVERIFY(::rename(qPrintable(tmp.filePath("events.new")), qPrintable(tmp.filePath("events.jsonl"))) == 0);
    QTRY_COMPARE_WITH_TIMEOUT(replaced.size(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(model.series(QStringLiteral("train/loss")).size(), 3, 5000);
    QCOMPARE(model.series(QStringLiteral("train/loss")).front().step, 7);
  }

  void without_a_model_it_only_signals() {
    QTemporaryDir tmp;
    EventFileTail tail(nullptr, fast());
    QSignalSpy events(&tail, &EventFileTail::events_read);
    QVERIFY(test::write_all(tmp.filePath("events.jsonl"), metric(1, 0.5)));
    tail.start(tmp.path());
    QTRY_COMPARE_WITH_TIMEOUT(events.size(), 1, 5000);
    QCOMPARE(events[0][0].toByteArray(), metric(1, 0.5));
  }

  void invalid_options_fall_back() {
    EventFileTailOptions bad;
    bad.poll_interval_ms = 0;
    QCOMPARE(bad.validate().size(), 1);
    QVERIFY(bad.validate().front().startsWith(QStringLiteral("poll_interval_ms")));
    QVERIFY(fast().validate().isEmpty());
  }
};

QTEST_GUILESS_MAIN(EventFileTailTest)
#include "event_file_tail_test.moc"
