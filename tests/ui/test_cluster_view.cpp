// The console's cluster parts as widgets (label gui, offscreen): a cluster
// file imported into the Cluster view lists its hosts; Test connection
// against a host where nothing listens reports it unreachable in the table;
// the job editor's "Run on" chooser lists the cluster and choosing it makes
// the coordinator launch there; a launch on that cluster fails with the
// connection error, shown per node in the run monitor's node table.
#include <QApplication>
#include <QComboBox>
#include <QInputDialog>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <optional>

#include "app/cluster/ssh_launcher.hpp"
#include "ui/cluster/cluster_panel.hpp"
#include "ui/cluster/gui_auth_delegate.hpp"
#include "ui/jobs/job_editor_widget.hpp"
#include "ui/monitor/node_table.hpp"
#include "app/session/run_controller.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "ui/shell/main_window.hpp"
#include "app/settings/settings_store.hpp"
#include "app/session/launch_coordinator.hpp"

using namespace medsynth;

namespace {
// Port 1 (tcpmux): nothing listens there on a test machine; connecting is refused at once.
int closed_port() { return 1; }
}  // namespace

class ClusterViewTest : public QObject {
  Q_OBJECT

  QTemporaryDir temp_;

  QString write_cluster() {
    const QString path = temp_.filePath(QStringLiteral("lab.yaml"));
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(QStringLiteral("name: lab\nkind: ssh\nknown_hosts: %1/known_hosts\nconnect_timeout_s: 3\nhosts:\n"
                           "  - {name: n1, address: 127.0.0.1, port: %2, work_dir: /tmp/w}\n"
                           "  - {name: n2, address: 127.0.0.1, port: %2, work_dir: /tmp/w}\n")
                .arg(temp_.path()).arg(closed_port()).toUtf8());
    return path;
  }

 private slots:
  void importedClusterListsItsHostsAndTestConnectionReportsUnreachable() {
    QSettings settings(temp_.filePath(QStringLiteral("a.ini")), QSettings::IniFormat);
    app::ClusterInventory inventory(&settings);
    ui::GuiAuthDelegate delegate(nullptr);
    ui::ClusterPanel panel(&inventory, &delegate);
    QSignalSpy changed(&panel, &ui::ClusterPanel::clusters_changed);
    QCOMPARE(panel.import_cluster_file(write_cluster()), QString());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(panel.current_cluster(), QStringLiteral("lab"));
    QCOMPARE(panel.hosts_table()->rowCount(), 2);
    QCOMPARE(panel.hosts_table()->item(1, 0)->text(), QStringLiteral("n2"));
    QVERIFY(settings.value(QStringLiteral("clusters/lab")).toString().contains(QStringLiteral("address: 127.0.0.1")));

    QSignalSpy checked(&panel, &ui::ClusterPanel::host_checked);
    panel.test_connection();
    QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 2, 20000);
    const QString status = panel.hosts_table()->item(0, 4)->text();
    QVERIFY2(status.startsWith(QStringLiteral("unreachable:")) && status.contains(QStringLiteral("127.0.0.1:1")), qPrintable(status));

    QString error = panel.import_cluster_file(temp_.filePath(QStringLiteral("missing.yaml")));
    QVERIFY2(error.contains(QStringLiteral("missing.yaml: cannot read")), qPrintable(error));
  }

  // Scenario 25: the passphrase dialog, asked from a launcher's worker thread
  // as a connection does, hides what is typed and returns it once; cancel is
  // "no passphrase". (The SSH side, with a real protected key and ssh-agent,
  // is SshLauncherTest::aPassphraseProtectedKeyWorksTypedAndThroughTheAgentAndIsNeverWritten.)
  void passphraseDialogHidesTheTextAndAnswersTheWorkerThread() {
    ui::GuiAuthDelegate delegate(nullptr);
    const QString secret = QStringLiteral("correct horse battery staple");
    for (const bool accept : {true, false}) {
      // The dialog runs its own event loop on this thread: answer it from a timer.
      QLineEdit::EchoMode echo = QLineEdit::Normal;
      QString label;
      QTimer answerer;
      answerer.setInterval(20);
      connect(&answerer, &QTimer::timeout, [&] {
        for (QWidget* w : QApplication::topLevelWidgets()) {
          auto* dialog = qobject_cast<QInputDialog*>(w);
          if (!dialog || !dialog->isVisible()) continue;
          answerer.stop();
          echo = dialog->textEchoMode();
          label = dialog->labelText();
          if (accept) {
            dialog->setTextValue(secret);
            dialog->accept();
          } else {
            dialog->reject();
          }
        }
      });
      answerer.start();
      std::optional<QString> answer{QStringLiteral("unset")};
      QThread* worker = QThread::create([&] { answer = delegate.key_passphrase(QStringLiteral("/home/u/.ssh/id_ed25519")); });
      worker->start();
      QTRY_VERIFY_WITH_TIMEOUT(worker->isFinished(), 10000);
      delete worker;
      QCOMPARE(echo, QLineEdit::Password);
      QVERIFY2(label.contains(QStringLiteral("/home/u/.ssh/id_ed25519")), qPrintable(label));
      if (accept) {
        QCOMPARE(answer, std::optional<QString>(secret));
      } else {
        QCOMPARE(answer, std::nullopt);
      }
    }
  }

  void runOnChooserTargetsTheClusterAndTheMonitorShowsEachNode() {
    medsynth::app::SettingsStore settings(temp_.filePath(QStringLiteral("b.ini")));
    ui::MainWindow window(&settings);
    QCOMPARE(window.cluster_panel()->import_cluster_file(write_cluster()), QString());
    auto* target = window.job_editor()->findChild<QComboBox*>(QStringLiteral("launch_target"));
    QVERIFY(target);
    QCOMPARE(target->count(), 2);  // this machine, lab
    QVERIFY(!window.coordinator()->target());
    window.job_editor()->set_launch_target(QStringLiteral("lab"));
    QVERIFY(window.coordinator()->target());
    QCOMPARE(window.coordinator()->target()->name, QStringLiteral("lab"));

    // Launching there: both nodes fail to connect; the monitor's node table says so per node.
    QSignalSpy opened(window.coordinator(), &app::LaunchCoordinator::run_opened);
    QSignalSpy ended(window.coordinator(), &app::LaunchCoordinator::run_ended);
    window.job_editor()->launch_button()->click();
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 30000);
    auto* run = opened.front().front().value<app::RunController*>();
    QCOMPARE(run->model()->status(), app::RunStatus::failed);
    ui::RunMonitorWidget* monitor = window.monitor_for(run);
    QVERIFY(monitor);
    ui::NodeTable* nodes = monitor->node_table();
    QCOMPARE(nodes->rowCount(), 2);
    QVERIFY(!nodes->isHidden());
    QCOMPARE(nodes->item(0, 1)->text(), QStringLiteral("failed"));
    QVERIFY2(nodes->item(0, 2)->text().contains(QStringLiteral("cannot connect")), qPrintable(nodes->item(0, 2)->text()));
  }
};

QTEST_MAIN(ClusterViewTest)
#include "test_cluster_view.moc"
