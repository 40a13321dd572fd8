// ClusterPanel: inventory + hosts table + Test connection.
#include "ui/cluster/cluster_panel.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "ui/cluster/gui_auth_delegate.hpp"
#include "ui/cluster/host_dialog.hpp"

namespace medsynth::ui {
namespace {
enum Column { name_col, endpoint_col, work_dir_col, engine_col, status_col, gpus_col, column_count };
}

ClusterPanel::ClusterPanel(app::ClusterInventory* inventory, GuiAuthDelegate* delegate, QWidget* parent)
    : QWidget(parent), inventory_(inventory), delegate_(delegate) {
  clusters_ = new QComboBox(this);
  clusters_->setObjectName(QStringLiteral("cluster_choice"));
  auto* add_cluster = new QPushButton(tr("New…"), this);
  auto* import = new QPushButton(tr("Import…"), this);
  auto* export_button = new QPushButton(tr("Export…"), this);
  auto* remove_cluster_button = new QPushButton(tr("Remove"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Cluster"), this));
  top->addWidget(clusters_, 1);
  top->addWidget(add_cluster);
  top->addWidget(import);
  top->addWidget(export_button);
  top->addWidget(remove_cluster_button);

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("cluster_summary"));
  summary_->setWordWrap(true);
  hosts_ = new QTableWidget(0, column_count, this);
  hosts_->setObjectName(QStringLiteral("cluster_hosts"));
  hosts_->setHorizontalHeaderLabels({tr("Host"), tr("Endpoint"), tr("Working directory"), tr("Engine"), tr("Status"), tr("GPUs")});
  hosts_->horizontalHeader()->setSectionResizeMode(status_col, QHeaderView::Stretch);
  hosts_->setSelectionBehavior(QAbstractItemView::SelectRows);
  hosts_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  hosts_->verticalHeader()->hide();

  auto* add_host = new QPushButton(tr("Add host…"), this);
  auto* edit = new QPushButton(tr("Edit host…"), this);
  auto* remove = new QPushButton(tr("Remove host"), this);
  test_ = new QPushButton(tr("Test connection"), this);
  test_->setObjectName(QStringLiteral("test_connection"));
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(add_host);
  bottom->addWidget(edit);
  bottom->addWidget(remove);
  bottom->addStretch(1);
  bottom->addWidget(test_);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(summary_);
  layout->addWidget(hosts_, 1);
  layout->addLayout(bottom);

  connect(clusters_, &QComboBox::currentTextChanged, this, &ClusterPanel::show_cluster);
  connect(add_cluster, &QPushButton::clicked, this, &ClusterPanel::new_cluster);
  connect(import, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Import a cluster file"), QString(), tr("Cluster files (*.yaml *.yml)"));
    if (f.isEmpty()) return;
    if (const QString problem = import_cluster_file(f); !problem.isEmpty()) QMessageBox::warning(this, tr("Import"), problem);
  });
  connect(export_button, &QPushButton::clicked, this, &ClusterPanel::export_cluster);
  connect(remove_cluster_button, &QPushButton::clicked, this, &ClusterPanel::remove_cluster);
  connect(add_host, &QPushButton::clicked, this, [this] { edit_host(-1); });
  connect(edit, &QPushButton::clicked, this, [this] { edit_host(hosts_->currentRow()); });
  connect(hosts_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { edit_host(row); });
  connect(remove, &QPushButton::clicked, this, &ClusterPanel::remove_host);
  connect(test_, &QPushButton::clicked, this, &ClusterPanel::test_connection);
  reload();
}

QString ClusterPanel::current_cluster() const { return clusters_->currentText(); }

void ClusterPanel::select_cluster(const QString& name) { clusters_->setCurrentText(name); }

void ClusterPanel::reload(const QString& select) {
  const QString keep = select.isEmpty() ? clusters_->currentText() : select;
  const QSignalBlocker block(clusters_);
  clusters_->clear();
  clusters_->addItems(inventory_->names());
  if (const int i = clusters_->findText(keep); i >= 0) clusters_->setCurrentIndex(i);
  show_cluster();
}

void ClusterPanel::show_cluster() {
  hosts_->setRowCount(0);
  const auto cluster = inventory_->find(clusters_->currentText());
  test_->setEnabled(cluster && !cluster->hosts.isEmpty());
  if (!cluster) {
    summary_->setText(tr("No cluster yet: New… for SSH hosts, or Import… a CLUSTER.yaml (SSH, SLURM or Kubernetes; docs/cluster.md)."));
    return;
  }
  QString text = tr("%1 cluster, rendezvous port %2, %3 process(es) per node").arg(app::to_string(cluster->kind)).arg(cluster->master_port).arg(cluster->nproc_per_node);
  if (cluster->kind == app::ClusterKind::slurm) {
    const auto& s = cluster->slurm;
    text = tr("SLURM: %1 node(s) × %2 task(s), %3 GPU(s) per node, partition %4, time %5, submitted %6")
               .arg(s.nodes).arg(s.tasks_per_node).arg(s.gpus_per_node)
               .arg(s.partition.isEmpty() ? tr("(default)") : s.partition, s.time_limit,
                    s.login_host.isEmpty() ? tr("on this machine") : tr("on %1").arg(s.login_host));
  } else if (cluster->kind == app::ClusterKind::kubernetes) {
    text = tr("Kubernetes: %1 pod(s), image %2 (exported as manifests)").arg(cluster->kubernetes.nodes).arg(cluster->kubernetes.image);
  }
  summary_->setText(text + tr("; known hosts: %1").arg(cluster->known_hosts_path()));
  for (const app::ClusterHost& h : cluster->hosts) {
    const int row = hosts_->rowCount();
    hosts_->insertRow(row);
    const QStringList cells{h.label(), h.endpoint(), h.work_dir, h.engine, tr("not tested"), QString()};
    for (int c = 0; c < column_count; ++c) hosts_->setItem(row, c, new QTableWidgetItem(cells[c]));
  }
}

void ClusterPanel::store(const app::ClusterSpec& cluster) {
  if (const QString problem = inventory_->put(cluster); !problem.isEmpty()) {
    QMessageBox::warning(this, tr("Cluster"), problem);
    return;
  }
  reload(cluster.name);
  emit clusters_changed();
}

QString ClusterPanel::import_cluster_file(const QString& path) {
  QString error;
  const auto cluster = app::load_cluster_file(path, &error);
  if (!cluster) return error;
  if (const QString problem = inventory_->put(*cluster); !problem.isEmpty()) return problem;
  reload(cluster->name);
  emit clusters_changed();
  emit message(tr("Cluster %1 imported from %2").arg(cluster->name, path));
  return {};
}

void ClusterPanel::new_cluster() {
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("New SSH cluster"), tr("Name (letters, digits, . _ -):"), QLineEdit::Normal, QString(), &ok);
  if (!ok || name.isEmpty()) return;
  app::ClusterHost first;
  HostDialog dialog(first, this);
  if (dialog.exec() != QDialog::Accepted) return;
  app::ClusterSpec c;
  c.name = name;
  c.hosts = {dialog.host()};
  store(c);
}

void ClusterPanel::edit_host(int row) {
  auto cluster = inventory_->find(clusters_->currentText());
  if (!cluster || (row >= cluster->hosts.size())) return;
  HostDialog dialog(row >= 0 ? cluster->hosts[row] : app::ClusterHost{}, this);
  if (dialog.exec() != QDialog::Accepted) return;
  if (row >= 0) cluster->hosts[row] = dialog.host();
  else cluster->hosts << dialog.host();
  store(*cluster);
}

void ClusterPanel::remove_host() {
  auto cluster = inventory_->find(clusters_->currentText());
  const int row = hosts_->currentRow();
  if (!cluster || row < 0 || row >= cluster->hosts.size()) return;
  cluster->hosts.removeAt(row);
  store(*cluster);
}

void ClusterPanel::export_cluster() {
  const auto cluster = inventory_->find(clusters_->currentText());
  if (!cluster) return;
  const QString f = QFileDialog::getSaveFileName(this, tr("Export cluster"), cluster->name + QStringLiteral(".yaml"), tr("Cluster files (*.yaml)"));
  if (f.isEmpty()) return;
  QSaveFile out(f);
  if (!out.open(QIODevice::WriteOnly) || out.write(app::cluster_to_yaml(*cluster).toUtf8()) < 0 || !out.commit())
    QMessageBox::warning(this, tr("Export"), tr("%1: %2").arg(f, out.errorString()));
}

void ClusterPanel::remove_cluster() {
  const QString name = clusters_->currentText();
  if (name.isEmpty() || QMessageBox::question(this, tr("Remove cluster"), tr("Remove %1 from the console?").arg(name)) != QMessageBox::Yes) return;
  inventory_->remove(name);
  reload();
  emit clusters_changed();
}

void ClusterPanel::test_connection() {
  const auto cluster = inventory_->find(clusters_->currentText());
  if (!cluster) return;
  for (int row = 0; row < cluster->hosts.size(); ++row) {
    const app::ClusterHost host = cluster->hosts[row];
    hosts_->item(row, status_col)->setText(tr("testing…"));
    auto* watcher = new QFutureWatcher<app::HostCheck>(this);
    connect(watcher, &QFutureWatcher<app::HostCheck>::finished, this, [this, watcher, row, host, name = cluster->name] {
      const app::HostCheck c = watcher->result();
      watcher->deleteLater();
      if (clusters_->currentText() == name && row < hosts_->rowCount()) {
        hosts_->item(row, status_col)->setText(c.summary());
        hosts_->item(row, status_col)->setForeground(c.ok() ? QColor(QStringLiteral("#1e8449")) : QColor(QStringLiteral("#c0392b")));
        hosts_->item(row, gpus_col)->setText(c.gpus.isEmpty() ? (c.connected ? tr("none") : QString()) : QString(c.gpus).replace(QLatin1Char('\n'), QStringLiteral("; ")));
      }
      emit host_checked(host.label(), c);
    });
    app::AuthDelegate* delegate = delegate_;
    watcher->setFuture(QtConcurrent::run([cluster = *cluster, host, delegate] { return app::check_host(cluster, host, delegate); }));
  }
}

}  // namespace medsynth::ui
