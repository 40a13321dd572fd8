#include "ui/machine/machine_panel.hpp"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSysInfo>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>

namespace medsynth::ui {

MachinePanel::MachinePanel(QWidget* parent) : QWidget(parent) {
  auto make_value = [this] {
    auto* label = new QLabel(QStringLiteral("…"), this);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
  };
  host_ = make_value();
  cores_ = make_value();
  memory_ = make_value();
  gpus_ = make_value();
  backend_ = make_value();
  engine_ = make_value();
  status_ = new QLabel(tr("Not probed yet."), this);
  status_->setWordWrap(true);
  status_->setObjectName("machine_status");
  refresh_ = new QPushButton(tr("Probe again"), this);

  auto* machine_box = new QGroupBox(tr("This machine"), this);
  auto* machine_form = new QFormLayout(machine_box);
  machine_form->addRow(tr("Host:"), host_);
  machine_form->addRow(tr("CPU cores:"), cores_);
  machine_form->addRow(tr("Memory:"), memory_);
  machine_form->addRow(tr("GPUs:"), gpus_);
  machine_form->addRow(tr("Backends:"), backend_);
  machine_form->addRow(tr("Engine:"), engine_);
  machine_form->addRow(status_);
  machine_form->addRow(refresh_);

  processes_ = new QSpinBox(this);
  processes_->setObjectName("processes");
  processes_->setRange(1, std::max(1, QThread::idealThreadCount()));
  processes_->setValue(1);
  processes_->setToolTip(tr("Processes this node runs (medsynth-engine launch --nproc-per-node): one per GPU with "
                            "CUDA, else CPU processes talking through Gloo."));
  restarts_ = new QSpinBox(this);
  restarts_->setObjectName("max_restarts");
  restarts_->setRange(0, 100);
  restarts_->setToolTip(tr("Restart all processes from the last checkpoint up to this many times when one fails."));
  processes_hint_ = new QLabel(this);
  processes_hint_->setWordWrap(true);

  auto* launch_box = new QGroupBox(tr("Next launch"), this);
  auto* launch_form = new QFormLayout(launch_box);
  launch_form->addRow(tr("Processes:"), processes_);
  launch_form->addRow(tr("Max restarts:"), restarts_);
  launch_form->addRow(processes_hint_);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(machine_box);
  layout->addWidget(launch_box);
  layout->addStretch(1);

  connect(processes_, &QSpinBox::valueChanged, this, &MachinePanel::processes_changed);
  connect(restarts_, &QSpinBox::valueChanged, this, &MachinePanel::max_restarts_changed);
  connect(refresh_, &QPushButton::clicked, this, [this] { probe(); });
  connect(&probe_, &app::MachineProbe::probed, this, &MachinePanel::set_machine_info);
  connect(&probe_, &app::MachineProbe::failed, this, &MachinePanel::on_probe_failed);
  processes_hint_->setText(tr("Up to %1 (CPU cores) until the engine is probed.").arg(processes_->maximum()));
}

void MachinePanel::probe(const QString& engine) {
  if (probe_.is_running()) return;
  status_->setText(tr("Asking the engine…"));
  refresh_->setEnabled(false);
  probe_.probe(engine);
}

void MachinePanel::set_machine_info(const app::MachineInfo& info) {
  info_ = info;
  has_info_ = true;
  refresh_->setEnabled(true);
  host_->setText(QSysInfo::machineHostName());
  cores_->setText(info.cpu_model.isEmpty() ? QString::number(info.cores)
                                           : tr("%1 (%2)").arg(info.cores).arg(info.cpu_model));
  memory_->setText(tr("%1 GiB").arg(info.memory_gib, 0, 'f', 1));
  gpus_->setText(info.gpus.isEmpty() ? tr("none (CPU training)") : info.gpus.join('\n'));
  QStringList backends;
  if (info.cuda && !info.nccl.isEmpty()) backends << tr("NCCL %1").arg(info.nccl);
  if (info.gloo) backends << QStringLiteral("Gloo");
  backend_->setText(backends.isEmpty() ? tr("none (single process only)") : backends.join(", "));
  engine_->setText(tr("%1 (LibTorch %2)").arg(info.engine_version, info.libtorch));
  status_->setText(tr("Probed."));

  // One process per GPU with CUDA; on CPU, more processes than cores only fight over them.
  const int max = info.cuda && !info.gpus.isEmpty() ? static_cast<int>(info.gpus.size()) : std::max(1, info.cores);
  processes_->setMaximum(max);
  processes_hint_->setText(info.cuda ? tr("Up to %1: one process per GPU.").arg(max)
                                     : tr("Up to %1 CPU processes (Gloo); each uses its share of the cores.").arg(max));
  if (!info.gloo && !info.cuda) processes_->setMaximum(1);
  emit probed(info);
}

void MachinePanel::on_probe_failed(const QString& reason) {
  refresh_->setEnabled(true);
  status_->setText(tr("Could not ask the engine: %1").arg(reason));
  emit probe_failed(reason);
}

int MachinePanel::processes() const { return processes_->value(); }
void MachinePanel::set_processes(int n) { processes_->setValue(std::clamp(n, 1, processes_->maximum())); }
int MachinePanel::max_processes() const { return processes_->maximum(); }
int MachinePanel::max_restarts() const { return restarts_->value(); }
void MachinePanel::set_max_restarts(int n) { restarts_->setValue(n); }

app::LaunchOptions MachinePanel::launch_options() const {
  app::LaunchOptions options;
  options.nproc_per_node = processes();
  options.max_restarts = max_restarts();
  return options;
}

}  // namespace medsynth::ui
