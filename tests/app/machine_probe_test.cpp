// MachineProbe: parsing `info --json` (recorded and live) and refusing garbage.
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "app/launch/machine_probe.hpp"
#include "app_test_support.hpp"

using namespace medsynth::app;

class MachineProbeTest : public QObject {
  Q_OBJECT

 private slots:
  void parses_recorded_output() {
    QString error;
    const auto info = MachineProbe::parse(test::read_all(test::fixture(QStringLiteral("info.json"))), &error);
    QVERIFY2(info.has_value(), qPrintable(error));
    QVERIFY(info->cores >= 1);
    QVERIFY(info->memory_gib > 0);
    QVERIFY(!info->libtorch.isEmpty());
    QVERIFY(!info->engine_version.isEmpty());
    QVERIFY(info->gloo);
    QCOMPARE(info->cuda, !info->gpus.isEmpty());
    QVERIFY(!info->cpu_model.isEmpty());
  }

  void parses_gpus() {
    QString error;
    const auto info = MachineProbe::parse(
        R"({"medsynth":"0.1.0","libtorch":"2.15.0","cuda_available":true,"cuda_device_count":2,"nccl":"2.30.7","gloo":true,
            "hardware_threads":64,"memory_gib":512.0,"devices":[{"type":"cpu","name":"EPYC","cores":64},
            {"type":"cuda","index":0,"name":"H200"},{"type":"cuda","index":1}]})",
        &error);
    QVERIFY2(info.has_value(), qPrintable(error));
    QCOMPARE(info->gpus, (QStringList{"H200", "cuda:1"}));
    QCOMPARE(info->nccl, QStringLiteral("2.30.7"));
    QCOMPARE(info->cores, 64);
    const auto no_nccl = MachineProbe::parse(R"({"medsynth":"0.1.0","libtorch":"2.15.0","nccl":"unavailable","hardware_threads":2})", &error);
    QVERIFY(no_nccl && no_nccl->nccl.isEmpty());
  }

  void refuses_garbage() {
    QString error;
    QVERIFY(!MachineProbe::parse("not json", &error));
    QVERIFY(error.startsWith(QStringLiteral("not JSON")));
    QVERIFY(!MachineProbe::parse("[1]", &error));
    QVERIFY(!MachineProbe::parse(R"({"libtorch":"2.15.0","hardware_threads":2})", &error));
    QVERIFY(error.startsWith(QStringLiteral("medsynth")));
    QVERIFY(!MachineProbe::parse(R"({"medsynth":"0.1.0","libtorch":"2.15.0"})", &error));
    QVERIFY(error.startsWith(QStringLiteral("hardware_threads")));
  }

  void probes_the_real_engine() {
    const QString engine = test::engine_path();
    if (engine.isEmpty()) QSKIP("medsynth-engine not built (ninja medsynth-engine) and MEDSYNTH_ENGINE not set");
    MachineProbe probe;
    QSignalSpy probed(&probe, &MachineProbe::probed);
    QSignalSpy failed(&probe, &MachineProbe::failed);
    probe.probe(engine);
    QTRY_VERIFY_WITH_TIMEOUT(probed.size() + failed.size() == 1, 30000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed[0][0].toString()));
    const auto info = probed[0][0].value<MachineInfo>();
    QCOMPARE(info.cores, QThread::idealThreadCount());
  }

  void a_missing_engine_fails() {
    MachineProbe probe;
    QSignalSpy failed(&probe, &MachineProbe::failed);
    probe.probe(QStringLiteral("/no/such/medsynth-engine"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
    QVERIFY(failed[0][0].toString().contains(QStringLiteral("/no/such/medsynth-engine")));
  }
};

QTEST_GUILESS_MAIN(MachineProbeTest)
#include "machine_probe_test.moc"
