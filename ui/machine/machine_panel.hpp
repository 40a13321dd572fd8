// The "Machine" panel: what this computer offers (cores, memory, GPUs, CUDA,
// LibTorch/NCCL/Gloo, from MachineProbe = `medsynth-engine info --json`, run
// asynchronously) and the launcher's choices for the next run: how many
// processes (default 1; at most the GPUs with CUDA, else the cores) and how
// many restarts. MainWindow docks it; JobEditorWidget shows the effective
// batch with its process count; LaunchCoordinator reads launch_options().
#pragma once

#include <QWidget>

#include "app/jobs/job_field_catalog.hpp"
#include "app/launch/machine_probe.hpp"

QT_BEGIN_NAMESPACE
class QLabel;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace medsynth::ui {

class MachinePanel : public QWidget {
  Q_OBJECT

 public:
  explicit MachinePanel(QWidget* parent = nullptr);

  // Asks the engine (empty: LocalLauncher::engine_path()) what the machine has.
  void probe(const QString& engine = {});
  // What a probe found (also callable directly, e.g. by tests).
  void set_machine_info(const app::MachineInfo& info);
  bool has_machine_info() const { return has_info_; }
  app::MachineInfo machine_info() const { return info_; }

  int processes() const;
  void set_processes(int n);  // clamped to [1, max_processes()]
  int max_processes() const;
  int max_restarts() const;
  void set_max_restarts(int n);
  app::LaunchOptions launch_options() const;

  QSpinBox* processes_spin_box() const { return processes_; }

 signals:
  void processes_changed(int n);
  void max_restarts_changed(int n);
  void probed(const medsynth::app::MachineInfo& info);
  void probe_failed(const QString& reason);

 private:
  void on_probe_failed(const QString& reason);

  app::MachineProbe probe_;
  app::MachineInfo info_;
  bool has_info_ = false;
  QLabel* host_ = nullptr;
  QLabel* cores_ = nullptr;
  QLabel* memory_ = nullptr;
  QLabel* gpus_ = nullptr;
  QLabel* backend_ = nullptr;
  QLabel* engine_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* refresh_ = nullptr;
  QSpinBox* processes_ = nullptr;
  QSpinBox* restarts_ = nullptr;
  QLabel* processes_hint_ = nullptr;
};

}  // namespace medsynth::ui
