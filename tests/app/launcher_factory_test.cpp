// make_launcher (app/cluster/launcher_factory.hpp): the one place the console
// and `medsynth run` choose a launcher, by the target's kind. Nothing is
// started here: the launchers' own tests run them (local, sshd, SLURM).
#include <QTest>

#include "app/cluster/launch_record.hpp"
#include "app/cluster/launcher_factory.hpp"
#include "app/cluster/slurm_launcher.hpp"
#include "app/cluster/ssh_launcher.hpp"

using namespace medsynth::app;

class LauncherFactoryTest : public QObject {
  Q_OBJECT

  static ClusterSpec cluster(ClusterKind kind) {
    ClusterSpec c;
    c.name = QStringLiteral("lab");
    c.kind = kind;
    c.hosts = {ClusterHost{}};
    return c;
  }

 private slots:
  void no_target_is_this_machine_with_its_options() {
    LocalLauncherOptions local;
    local.engine = QStringLiteral("/opt/medsynth/bin/medsynth-engine");
    const auto launcher = make_launcher(nullptr, nullptr, local);
    QVERIFY(dynamic_cast<LocalLauncher*>(launcher.get()));
    QCOMPARE(launch_record_of(*launcher), nullptr);
    QVERIFY(!reattach(*launcher, LaunchRecord{}));
  }

  void each_cluster_kind_gets_its_launcher_and_record() {
    FixedAuthDelegate delegate;
    const ClusterSpec ssh = cluster(ClusterKind::ssh), slurm = cluster(ClusterKind::slurm);
    const auto a = make_launcher(&ssh, &delegate);
    QVERIFY(dynamic_cast<SshLauncher*>(a.get()));
    QCOMPARE(launch_record_of(*a), &static_cast<SshLauncher&>(*a).record());
    const auto b = make_launcher(&slurm, &delegate);
    QVERIFY(dynamic_cast<SlurmLauncher*>(b.get()));
    QCOMPARE(launch_record_of(*b), &static_cast<SlurmLauncher&>(*b).record());
  }

  void kubernetes_has_no_launcher() {
    const ClusterSpec k8s = cluster(ClusterKind::kubernetes);
    QVERIFY(make_launcher(&k8s, nullptr) == nullptr);
  }
};

QTEST_GUILESS_MAIN(LauncherFactoryTest)
#include "launcher_factory_test.moc"
