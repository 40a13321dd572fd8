// The Cluster view: the clusters of the inventory (settings), the hosts of
// the chosen one with their status and GPUs, Add/Edit/Remove host, New and
// Import/Export of CLUSTER.yaml files, and Test connection, which checks each
// host on a worker thread (app::check_host: reachability, host key, auth,
// the remote engine's version, nvidia-smi) and fills the Status/GPUs columns.
#pragma once

#include <QWidget>

#include "app/cluster/cluster_inventory.hpp"
#include "app/cluster/host_check.hpp"

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
QT_END_NAMESPACE

namespace medsynth::ui {

class GuiAuthDelegate;

class ClusterPanel : public QWidget {
  Q_OBJECT

 public:
  ClusterPanel(app::ClusterInventory* inventory, GuiAuthDelegate* delegate, QWidget* parent = nullptr);

  QString current_cluster() const;
  void select_cluster(const QString& name);
  QTableWidget* hosts_table() const { return hosts_; }
  // Checks every host of the current cluster (asynchronous; host_checked per host).
  void test_connection();
  // Adds a cluster file to the inventory; "" or the problem.
  QString import_cluster_file(const QString& path);

 signals:
  void clusters_changed();
  void host_checked(const QString& host, const medsynth::app::HostCheck& check);
  void message(const QString& text);

 private:
  void reload(const QString& select = {});
  void show_cluster();
  void edit_host(int row);  // row -1: a new host
  void remove_host();
  void new_cluster();
  void export_cluster();
  void remove_cluster();
  void store(const app::ClusterSpec& cluster);

  app::ClusterInventory* inventory_;
  GuiAuthDelegate* delegate_;
  QComboBox* clusters_;
  QLabel* summary_;
  QTableWidget* hosts_;
  QPushButton* test_;
};

}  // namespace medsynth::ui
