// Add or edit one host of a cluster: address, port, user, key file (or
// ssh-agent when empty), remote working directory, remote engine, and the
// address the other nodes use. There is no password field by design.
#pragma once

#include <QDialog>

#include "app/cluster/cluster_spec.hpp"

QT_BEGIN_NAMESPACE
class QLineEdit;
class QSpinBox;
class QLabel;
QT_END_NAMESPACE

namespace medsynth::ui {

class HostDialog : public QDialog {
  Q_OBJECT

 public:
  explicit HostDialog(const app::ClusterHost& host, QWidget* parent = nullptr);
  app::ClusterHost host() const;

 private:
  void accept() override;  // validates (the problems show in the dialog)

  QLineEdit* name_;
  QLineEdit* address_;
  QSpinBox* port_;
  QLineEdit* user_;
  QLineEdit* key_file_;
  QLineEdit* work_dir_;
  QLineEdit* engine_;
  QLineEdit* cluster_address_;
  QLabel* problems_;
};

}  // namespace medsynth::ui
