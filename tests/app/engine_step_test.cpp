// EngineStep, the one runner of one-shot engine commands (issue 52 item 2):
// stderr relayed line by line (stdout only when merged), the exit code and a
// crash told apart, a program that cannot start reported without a finished(),
// stop() ending the command, and a second start refused while one runs. Run
// on /bin/sh, the smallest real process.
#include <QSignalSpy>
#include <QTest>

#include "app/launch/engine_step.hpp"

using namespace medsynth::app;

namespace {
QStringList lines_of(const QSignalSpy& spy) {
  QStringList out;
  for (const auto& args : spy) out << args.at(0).toString();
  return out;
}
}  // namespace

class EngineStepTest : public QObject {
  Q_OBJECT

 private slots:
  void stderr_is_relayed_and_the_exit_code_reported() {
    EngineStep step({.program = QStringLiteral("/bin/sh")});
    QSignalSpy lines(&step, &EngineStep::line), finished(&step, &EngineStep::finished);
    QVERIFY(step.start({QStringLiteral("-c"), QStringLiteral("echo one >&2; echo out; printf 'two' >&2; exit 3")}));
    QVERIFY(finished.wait(10000));
    QCOMPARE(lines_of(lines), (QStringList{QStringLiteral("one"), QStringLiteral("two")}));
    QCOMPARE(finished.at(0).at(0).toInt(), 3);
    QCOMPARE(finished.at(0).at(1).toBool(), false);
    QVERIFY(!step.is_running());
  }

  void merged_output_relays_stdout_too() {
    EngineStep step({.program = QStringLiteral("/bin/sh"), .merge_stdout = true});
    QSignalSpy lines(&step, &EngineStep::line), finished(&step, &EngineStep::finished);
    QVERIFY(step.start({QStringLiteral("-c"), QStringLiteral("echo step 1 of 2; echo oops >&2")}));
    QVERIFY(finished.wait(10000));
    QCOMPARE(lines_of(lines), (QStringList{QStringLiteral("step 1 of 2"), QStringLiteral("oops")}));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
  }

  void a_missing_program_fails_to_start_naming_it() {
    EngineStep step({.program = QStringLiteral("/nonexistent/medsynth-engine")});
    QSignalSpy failed(&step, &EngineStep::failed_to_start), finished(&step, &EngineStep::finished);
    step.start({QStringLiteral("generate")});
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("/nonexistent/medsynth-engine")),
             qPrintable(failed.at(0).at(0).toString()));
    QTest::qWait(50);
    QCOMPARE(finished.size(), 0);
  }

  void stop_ends_a_running_command_and_a_second_start_is_refused() {
    EngineStep step({.program = QStringLiteral("/bin/sh")});
    QSignalSpy finished(&step, &EngineStep::finished);
    QVERIFY(step.start({QStringLiteral("-c"), QStringLiteral("exec sleep 30")}));
    QTRY_VERIFY(step.is_running());
    QVERIFY(!step.start({QStringLiteral("-c"), QStringLiteral("true")}));
    step.stop();
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(0).at(1).toBool(), true);  // SIGTERM: a crash exit, not an exit code
    // Reusable once it has ended.
    QVERIFY(step.start({QStringLiteral("-c"), QStringLiteral("exit 0")}));
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.at(1).at(0).toInt(), 0);
  }
};

QTEST_GUILESS_MAIN(EngineStepTest)
#include "engine_step_test.moc"
