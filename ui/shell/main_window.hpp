// The console's main window. Thin: it owns the document, the run store and the
// controllers, hosts the feature widgets (Job editor and Runs history as tabs,
// a monitor tab per open run, the Machine panel as a dock), and wires their
// signals; menus (File > Generate CT from MAISI weights… opens
// MaisiGenerateDialog), shortcuts (Ctrl+O open, Ctrl+S save, Ctrl+R launch, Ctrl+.
// stop, Ctrl+T theme, F5 refresh history) and the status bar, where errors
// from any part show. Built by main() and by the end-to-end test.
#pragma once

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <memory>

#include "app/cluster/cluster_inventory.hpp"
#include "app/jobs/job_document.hpp"
#include "app/runs/run_store.hpp"
#include "ui/shell/command_line.hpp"

QT_BEGIN_NAMESPACE
class QAction;
class QDockWidget;
class QLabel;
class QTabWidget;
QT_END_NAMESPACE

namespace medsynth::app {
class LaunchCoordinator;
class RunController;
}  // namespace medsynth::app

namespace medsynth::app {
class SettingsStore;
}  // namespace medsynth::app

namespace medsynth::ui {

using app::LaunchCoordinator;
using app::RunController;

class ClusterPanel;
class GuiAuthDelegate;
class JobEditorWidget;
class MachinePanel;
class MaisiGenerateDialog;
class SyntheticDatasetDialog;
class RunHistoryWidget;
class RunMonitorWidget;
class ThemeController;
class VolumeWorkspace;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // settings: not owned, must outlive the window.
  explicit MainWindow(app::SettingsStore* settings, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens what the command line names (job, run, extra run roots). Returns
  // false when something named could not be opened (the status bar says why).
  bool apply_command_line(const CommandLineOptions& options);
  // Grabs the window (monitors redrawn first) into a PNG. False + *error on failure.
  bool save_screenshot(const QString& path, QString* error = nullptr);
  // Asks the engine what the machine has (asynchronous).
  void probe_machine();

  app::JobDocument* document() { return &document_; }
  app::RunStore* run_store() { return &store_; }
  JobEditorWidget* job_editor() const { return job_editor_; }
  MachinePanel* machine_panel() const { return machine_; }
  ClusterPanel* cluster_panel() const { return clusters_; }
  RunHistoryWidget* history() const { return history_; }
  LaunchCoordinator* coordinator() const { return coordinator_; }
  ThemeController* theme() const { return theme_; }
  VolumeWorkspace* volumes() const { return volumes_; }
  QTabWidget* tabs() const { return tabs_; }
  RunMonitorWidget* monitor_for(const RunController* run) const;
  RunMonitorWidget* current_monitor() const;
  QString last_status_message() const { return last_message_; }

 public slots:
  void show_status(const QString& text);
  void show_error(const QString& text);
  // File > Generate CT from MAISI weights…: the dialog (one, non-modal); what
  // it generates opens in a viewer tab, its label map over it.
  MaisiGenerateDialog* open_maisi_dialog();
  // File > Synthetic dataset… (issue 39.5); one, non-modal.
  SyntheticDatasetDialog* open_dataset_dialog();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_menus();
  void build_file_menu();
  void build_run_menu();
  void build_view_menu();
  void build_help_menu();
  void wire();
  void on_run_opened(RunController* run);
  void close_tab(int index);
  void open_run_dialog();
  void update_title();
  void update_actions();
  QStringList effective_roots() const;

  app::SettingsStore* settings_;
  app::JobDocument document_;
  app::RunStore store_;
  QStringList extra_roots_;  // from --runs-dir (not persisted)
  ThemeController* theme_ = nullptr;
  LaunchCoordinator* coordinator_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  VolumeWorkspace* volumes_ = nullptr;
  JobEditorWidget* job_editor_ = nullptr;
  RunHistoryWidget* history_ = nullptr;
  MachinePanel* machine_ = nullptr;
  QDockWidget* machine_dock_ = nullptr;
  std::unique_ptr<app::ClusterInventory> cluster_inventory_;
  std::unique_ptr<GuiAuthDelegate> auth_delegate_;
  ClusterPanel* clusters_ = nullptr;
  QDockWidget* cluster_dock_ = nullptr;
  QHash<const RunController*, QPointer<RunMonitorWidget>> monitors_;
  QPointer<MaisiGenerateDialog> maisi_dialog_;
  QPointer<SyntheticDatasetDialog> dataset_dialog_;
  QLabel* status_label_ = nullptr;
  QString last_message_;
  bool quit_when_stopped_ = false;  // closing waits for the run to stop
  QAction* launch_action_ = nullptr;
  QAction* stop_action_ = nullptr;
  QAction* dark_action_ = nullptr;
};

}  // namespace medsynth::ui
