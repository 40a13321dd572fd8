// HostDialog: a form over ClusterHost, validated with ClusterSpec's rules.
#include "ui/cluster/host_dialog.hpp"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace medsynth::ui {

HostDialog::HostDialog(const app::ClusterHost& h, QWidget* parent) : QDialog(parent) {
  setWindowTitle(h.address.isEmpty() ? tr("Add host") : tr("Edit host %1").arg(h.label()));
  auto* form = new QFormLayout;
  name_ = new QLineEdit(h.name, this);
  address_ = new QLineEdit(h.address, this);
  port_ = new QSpinBox(this);
  port_->setRange(0, 65535);
  port_->setSpecialValueText(tr("from ssh config, else 22"));
  port_->setValue(h.port);
  user_ = new QLineEdit(h.user, this);
  user_->setPlaceholderText(tr("ssh config's User, else %1").arg(qEnvironmentVariable("USER")));
  key_file_ = new QLineEdit(h.key_file, this);
  key_file_->setPlaceholderText(tr("empty: ssh-agent, the ssh config's IdentityFile, then ~/.ssh/id_*"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::homePath() + QStringLiteral("/.ssh"));
    if (!f.isEmpty()) key_file_->setText(f);
  });
  auto* key_row = new QHBoxLayout;
  key_row->addWidget(key_file_, 1);
  key_row->addWidget(browse);
  work_dir_ = new QLineEdit(h.work_dir, this);
  work_dir_->setPlaceholderText(tr("/scratch/you/medsynth (shared by the nodes)"));
  engine_ = new QLineEdit(h.engine, this);
  cluster_address_ = new QLineEdit(h.cluster_address, this);
  cluster_address_->setPlaceholderText(tr("empty: the address above (an ssh config alias: its HostName)"));
  name_->setObjectName(QStringLiteral("host_name"));
  address_->setObjectName(QStringLiteral("host_address"));
  work_dir_->setObjectName(QStringLiteral("host_work_dir"));
  form->addRow(tr("Name"), name_);
  form->addRow(tr("Address"), address_);
  form->addRow(tr("Port"), port_);
  form->addRow(tr("User"), user_);
  form->addRow(tr("Key file"), key_row);
  form->addRow(tr("Working directory"), work_dir_);
  form->addRow(tr("Remote engine"), engine_);
  form->addRow(tr("Address for other nodes"), cluster_address_);
  problems_ = new QLabel(this);
  problems_->setObjectName(QStringLiteral("host_problems"));
  problems_->setWordWrap(true);
  problems_->setStyleSheet(QStringLiteral("color: #c0392b"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &HostDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(new QLabel(tr("Passwords are never asked for or stored: the console logs in with a key."), this));
  layout->addWidget(problems_);
  layout->addWidget(buttons);
}

app::ClusterHost HostDialog::host() const {
  app::ClusterHost h;
  h.name = name_->text().trimmed();
  h.address = address_->text().trimmed();
  h.port = port_->value();
  h.user = user_->text().trimmed();
  h.key_file = key_file_->text().trimmed();
  h.work_dir = work_dir_->text().trimmed();
  h.engine = engine_->text().trimmed();
  h.cluster_address = cluster_address_->text().trimmed();
  return h;
}

void HostDialog::accept() {
  app::ClusterSpec probe;
  probe.name = QStringLiteral("probe");
  probe.hosts = {host()};
  const QStringList problems = probe.validate();
  if (!problems.isEmpty()) {
    problems_->setText(QStringList(problems).replaceInStrings(QStringLiteral("hosts[0]."), QString()).join(QLatin1Char('\n')));
    return;
  }
  QDialog::accept();
}

}  // namespace medsynth::ui
