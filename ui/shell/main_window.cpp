#include "ui/shell/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <algorithm>

#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

#include "app/jobs/job_templates.hpp"
#include "ui/history/run_history_widget.hpp"
#include "ui/jobs/job_editor_widget.hpp"
#include "ui/jobs/maisi_generate_dialog.hpp"
#include "ui/jobs/synthetic_dataset_dialog.hpp"
#include "ui/machine/machine_panel.hpp"
#include "ui/cluster/cluster_panel.hpp"
#include "ui/cluster/gui_auth_delegate.hpp"
#include "app/session/run_controller.hpp"
#include "ui/monitor/run_monitor_widget.hpp"
#include "app/session/launch_coordinator.hpp"
#include "app/settings/settings_store.hpp"
#include "ui/shell/theme_controller.hpp"
#include "ui/shell/volume_workspace.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"

namespace medsynth::ui {

namespace {
constexpr int k_error_timeout_ms = 15000;
constexpr int k_message_timeout_ms = 8000;

QScrollArea* scrolling(QWidget* panel) {
  auto* area = new QScrollArea;
  area->setWidget(panel);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  area->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  return area;
}

}  // namespace

MainWindow::MainWindow(app::SettingsStore* settings, QWidget* parent) : QMainWindow(parent), settings_(settings) {
  setObjectName("main_window");
  theme_ = new ThemeController(settings_, this);
  coordinator_ = new LaunchCoordinator(&document_, &store_, this);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("main_tabs");
  tabs_->setDocumentMode(true);
  tabs_->setTabsClosable(true);
  volumes_ = new VolumeWorkspace(tabs_, this);
  job_editor_ = new JobEditorWidget(&document_, settings_, tabs_);
  history_ = new RunHistoryWidget(&store_, tabs_);
  tabs_->addTab(job_editor_, tr("Job"));
  tabs_->addTab(history_, tr("Runs"));
  // The two fixed tabs cannot be closed; run monitors can.
  for (int i = 0; i < 2; ++i) tabs_->tabBar()->setTabButton(i, QTabBar::RightSide, nullptr);
  setCentralWidget(tabs_);

  machine_ = new MachinePanel(this);
  machine_dock_ = new QDockWidget(tr("Machine"), this);
  machine_dock_->setObjectName("machine_dock");
  // In a scroll area, so that the dock can be made narrow on a laptop screen
  // (issue 38: at 1366 px the panel pushed the window past the screen).
  machine_dock_->setWidget(scrolling(machine_));
  addDockWidget(Qt::RightDockWidgetArea, machine_dock_);

  // Clusters: SSH hosts and SLURM clusters to launch on (settings; no secrets).
  cluster_inventory_ = std::make_unique<app::ClusterInventory>(settings_->qsettings());
  auth_delegate_ = std::make_unique<GuiAuthDelegate>(this);
  coordinator_->set_auth_delegate(auth_delegate_.get());
  clusters_ = new ClusterPanel(cluster_inventory_.get(), auth_delegate_.get(), this);
  cluster_dock_ = new QDockWidget(tr("Clusters"), this);
  cluster_dock_->setObjectName("cluster_dock");
  cluster_dock_->setWidget(scrolling(clusters_));
  addDockWidget(Qt::RightDockWidgetArea, cluster_dock_);
  tabifyDockWidget(machine_dock_, cluster_dock_);
  machine_dock_->raise();
  job_editor_->set_launch_targets(cluster_inventory_->names());

  status_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_label_);

  if (settings_->processes() > 0) machine_->set_processes(settings_->processes());
  machine_->set_max_restarts(settings_->max_restarts());
  job_editor_->set_world_size(machine_->processes());

  build_menus();
  wire();
  store_.set_roots(effective_roots());
  if (const QStringList roots = effective_roots(); !roots.isEmpty()) coordinator_->set_runs_dir(roots.front());

  // 1500 x 950, or the screen's free area when it is smaller (a 1366 x 768 laptop).
  const QRect screen =
      QGuiApplication::primaryScreen() ? QGuiApplication::primaryScreen()->availableGeometry() : QRect(0, 0, 1500, 950);
  resize(std::min(1500, screen.width()), std::min(950, screen.height()));
  if (screen.width() < 1600) resizeDocks({machine_dock_}, {300}, Qt::Horizontal);  // the views keep the rest
  restoreGeometry(settings_->window_geometry());
  restoreState(settings_->window_state());
  update_title();
  update_actions();
}

MainWindow::~MainWindow() {
  // Monitors read the runs' models, and the runs report to monitors_: take
  // both down while this object's members are still alive.
  delete tabs_;
  tabs_ = nullptr;
  monitors_.clear();
  delete coordinator_;
  coordinator_ = nullptr;
}

QStringList MainWindow::effective_roots() const {
  QStringList roots;
  for (const QString& r : extra_roots_ + settings_->runs_roots()) {
    const QString clean = QDir::cleanPath(QFileInfo(r).absoluteFilePath());
    if (!roots.contains(clean)) roots << clean;
  }
  return roots;
}

void MainWindow::build_menus() {
  build_file_menu();
  build_run_menu();
  build_view_menu();
  build_help_menu();
}

void MainWindow::build_file_menu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open job…"), job_editor_, &JobEditorWidget::open_dialog);
  open->setShortcut(QKeySequence::Open);  // Ctrl+O
  file->addMenu(job_editor_->recent_menu());
  QAction* save = file->addAction(tr("&Save job"), job_editor_, [this] { job_editor_->save(); });
  save->setShortcut(QKeySequence::Save);  // Ctrl+S
  QAction* save_as = file->addAction(tr("Save job &as…"), job_editor_, &JobEditorWidget::save_as_dialog);
  save_as->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
  file->addSeparator();
  file->addAction(tr("Open &run folder…"), this, &MainWindow::open_run_dialog);
  QAction* open_volume = file->addAction(tr("Open &volume…"), this, [this] { volumes_->open_volume_dialog(this); });
  open_volume->setShortcut(QKeySequence(tr("Ctrl+Shift+O")));
  file->addAction(tr("&Compare volumes…"), this, [this] { volumes_->compare_dialog(this); });
  file->addAction(tr("Edit &labels…"), this, [this] { volumes_->label_studio_dialog(this); });
  // The viewer toolbar's command, from the menu too: a narrow window may hold
  // it in the toolbar's overflow (issue 53 item 1).
  file->addAction(tr("&Export DICOM…"), this,
                  [this] {
                    auto* viewer = qobject_cast<VolumeViewerWidget*>(tabs_->currentWidget());
                    if (viewer == nullptr) viewer = tabs_->currentWidget()->findChild<VolumeViewerWidget*>();
                    if (viewer == nullptr || !viewer->has_volume()) {
                      show_error(tr("Export DICOM: open a volume (or a run's sample) in a viewer tab first"));
                      return;
                    }
                    viewer->open_export_dialog();
                  })
      ->setObjectName(QStringLiteral("action_export_dicom"));
  file->addSeparator();
  QAction* maisi = file->addAction(tr("&Generate CT from MAISI weights…"), this, [this] { open_maisi_dialog(); });
  file->addAction(tr("Synthetic &dataset…"), this, [this] { open_dataset_dialog(); })
      ->setObjectName(QStringLiteral("action_synthetic_dataset"));
  maisi->setObjectName(QStringLiteral("action_maisi_generate"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::build_run_menu() {
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  launch_action_ = run->addAction(tr("&Launch"), this, [this] {
    tabs_->setCurrentWidget(job_editor_);
    job_editor_->commit_pending_edits();
    QString why;
    if (!job_editor_->can_launch(&why)) {
      show_error(tr("Cannot launch: %1").arg(why));
      return;
    }
    emit job_editor_->launch_requested();
  });
  launch_action_->setShortcut(QKeySequence(QStringLiteral("Ctrl+R")));
  stop_action_ = run->addAction(tr("&Stop"), coordinator_, &LaunchCoordinator::stop_active);
  stop_action_->setShortcut(QKeySequence(QStringLiteral("Ctrl+.")));
}

void MainWindow::build_view_menu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
  dark_action_ = view->addAction(tr("&Dark theme"));
  dark_action_->setCheckable(true);
  dark_action_->setShortcut(QKeySequence(QStringLiteral("Ctrl+T")));
  connect(dark_action_, &QAction::triggered, theme_, &ThemeController::toggle);
  QAction* refresh = view->addAction(tr("&Refresh run history"), history_, &RunHistoryWidget::refresh);
  refresh->setShortcut(QKeySequence(Qt::Key_F5));
  view->addAction(machine_dock_->toggleViewAction());
  view->addAction(cluster_dock_->toggleViewAction());
}

void MainWindow::build_help_menu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  // The guides ship with the sources (docs/); the menu says where, and what
  // to read first, rather than only About (issue 53 item 10).
  help->addAction(
          tr("&Getting started"), this,
          [this] {
            QMessageBox::information(
                this, tr("Getting started"),
                tr("<b>Train</b>: File › Open job… (templates in resources/jobs/), then Run › Launch (Ctrl+R); the "
                   "run's "
                   "loss, PSNR and SSIM appear live, its volumes in the Samples tab.<br><b>Look</b>: File › Open "
                   "volume… "
                   "(NIfTI, NRRD, MetaImage); right-drag sets window/level.<br><b>Generate</b>: File › Generate CT "
                   "from MAISI "
                   "weights…<br><b>Headless</b>: every action here is a <tt>medsynth-engine</tt> verb "
                   "(<tt>medsynth-engine --help</tt>).<br><br>The guides are in the docs/ folder of the sources: "
                   "console.md, job-file.md, maisi.md, cluster.md, evaluation.md."));
          })
      ->setObjectName(QStringLiteral("action_getting_started"));
  help->addAction(tr("&About medsynth"), this, [this] {
    QMessageBox::about(this, tr("About medsynth"),
                       tr("<b>medsynth %1</b><br>Console for 3D generative medical imaging: edit jobs, launch "
                          "and monitor training runs.")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::wire() {
  connect(machine_, &MachinePanel::processes_changed, this, [this](int n) {
    job_editor_->set_world_size(n);
    settings_->set_processes(n);
  });
  connect(clusters_, &ClusterPanel::clusters_changed, this,
          [this] { job_editor_->set_launch_targets(cluster_inventory_->names()); });
  connect(clusters_, &ClusterPanel::message, this, &MainWindow::show_status);
  connect(job_editor_, &JobEditorWidget::launch_target_changed, this, [this](const QString& name) {
    coordinator_->set_target(name.isEmpty() ? std::nullopt : cluster_inventory_->find(name));
    show_status(name.isEmpty() ? tr("Launch runs on this machine.") : tr("Launch runs on cluster %1.").arg(name));
  });
  connect(machine_, &MachinePanel::max_restarts_changed, this, [this](int n) { settings_->set_max_restarts(n); });
  connect(machine_, &MachinePanel::probed, job_editor_, &JobEditorWidget::set_machine_info);
  connect(machine_, &MachinePanel::probe_failed, this, [this](const QString& reason) {
    show_error(tr("Could not ask the engine about this machine: %1").arg(reason));
  });
  connect(job_editor_, &JobEditorWidget::launch_requested, this,
          [this] { coordinator_->launch(machine_->launch_options()); });
  connect(job_editor_, &JobEditorWidget::status_message, this, &MainWindow::show_status);
  connect(job_editor_, &JobEditorWidget::error_message, this, &MainWindow::show_error);
  connect(job_editor_, &JobEditorWidget::title_changed, this, [this](const QString& title) {
    tabs_->setTabText(tabs_->indexOf(job_editor_), tr("Job: %1").arg(title));
    update_title();
  });
  connect(coordinator_, &LaunchCoordinator::run_opened, this, &MainWindow::on_run_opened);
  connect(coordinator_, &LaunchCoordinator::status_message, this, &MainWindow::show_status);
  connect(coordinator_, &LaunchCoordinator::error_message, this, &MainWindow::show_error);
  connect(coordinator_, &LaunchCoordinator::active_changed, this, [this](bool live) {
    job_editor_->set_launch_blocked(live, tr("a run is in progress"));
    update_actions();
  });
  connect(coordinator_, &LaunchCoordinator::run_ended, this, [this](RunController* run, app::RunStatus status) {
    if (status == app::RunStatus::failed && !run->model()->failure_message().isEmpty()) {
      show_error(tr("The run failed: %1").arg(run->model()->failure_message()));
    }
  });
  connect(history_, &RunHistoryWidget::open_run_requested, coordinator_, &LaunchCoordinator::open_run);
  connect(history_, &RunHistoryWidget::roots_changed, this, [this](const QStringList& roots) {
    QStringList persisted;
    for (const QString& r : roots) {
      if (!extra_roots_.contains(r)) persisted << r;
    }
    settings_->set_runs_roots(persisted);
  });
  connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::close_tab);
  connect(theme_, &ThemeController::theme_changed, this,
          [this](ThemeController::Theme t) { dark_action_->setChecked(t == ThemeController::Theme::dark); });
}

bool MainWindow::apply_command_line(const CommandLineOptions& options) {
  bool ok = true;
  extra_roots_.clear();
  for (const QString& dir : options.runs_dirs) extra_roots_ << QDir::cleanPath(QFileInfo(dir).absoluteFilePath());
  store_.set_roots(effective_roots());
  if (!extra_roots_.isEmpty()) coordinator_->set_runs_dir(extra_roots_.front());
  if (!options.open_job.isEmpty()) {
    ok = job_editor_->open_file(options.open_job) && ok;
  } else if (document_.yaml().isEmpty()) {
    // Start from the first template the engine can train (the quick start).
    for (const app::JobTemplate& t : app::builtin_templates()) {
      if (t.engine_supported) {
        job_editor_->load_template(t.id);
        break;
      }
    }
  }
  if (!options.open_run.isEmpty()) ok = coordinator_->open_run(options.open_run) != nullptr && ok;
  for (const QString& path : options.open_volumes) volumes_->open_volume(path);
  history_->refresh();
  return ok;
}

void MainWindow::probe_machine() { machine_->probe(); }

void MainWindow::on_run_opened(RunController* run) {
  if (RunMonitorWidget* existing = monitor_for(run)) {
    tabs_->setCurrentWidget(existing);
    return;
  }
  auto* monitor = new RunMonitorWidget(tabs_);
  monitor->set_controller(run);
  monitors_.insert(run, monitor);
  const QString name = run->run_dir().isEmpty() ? tr("New run") : QFileInfo(run->run_dir()).fileName();
  const int index = tabs_->addTab(monitor, name);
  tabs_->setCurrentIndex(index);
  connect(run, &RunController::run_dir_known, monitor, [this, monitor](const QString& dir) {
    tabs_->setTabText(tabs_->indexOf(monitor), QFileInfo(dir).fileName());
  });
  connect(monitor, &RunMonitorWidget::resume_requested, this,
          [this](const QString& dir) { coordinator_->resume(dir, machine_->launch_options()); });
  connect(run, &QObject::destroyed, this, [this, run] { monitors_.remove(run); });
  // Volumes the monitor offers (reconstructions, generated images) open in the viewer.
  connect(monitor, &RunMonitorWidget::file_activated, this, [this](const QString& path) {
    if (path.endsWith(QStringLiteral(".nii")) || path.endsWith(QStringLiteral(".nii.gz"))) volumes_->open_volume(path);
  });
  // A flagged memorization pair opens side by side.
  connect(monitor, &RunMonitorWidget::compare_requested, this,
          [this](const QString& a, const QString& b) { volumes_->compare(a, b); });
  volumes_->attach_samples(run);
}

RunMonitorWidget* MainWindow::monitor_for(const RunController* run) const { return monitors_.value(run); }

RunMonitorWidget* MainWindow::current_monitor() const {
  return qobject_cast<RunMonitorWidget*>(tabs_->currentWidget());
}

void MainWindow::close_tab(int index) {
  if (QWidget* tab = tabs_->widget(index); volumes_->owns(tab)) {
    tabs_->removeTab(index);
    tab->deleteLater();
    return;
  }
  auto* monitor = qobject_cast<RunMonitorWidget*>(tabs_->widget(index));
  if (!monitor) return;
  RunController* run = monitor->controller();
  if (run && !coordinator_->close_run(run)) return;
  if (run) monitors_.remove(run);
  tabs_->removeTab(index);
  monitor->deleteLater();
}

MaisiGenerateDialog* MainWindow::open_maisi_dialog() {
  if (!maisi_dialog_) {
    const QStringList roots = effective_roots();
    maisi_dialog_ = new MaisiGenerateDialog(roots.isEmpty() ? QString() : roots.front(), machine_->processes(), this);
    connect(maisi_dialog_, &MaisiGenerateDialog::generated, this, [this](const QString& image, const QString& label) {
      volumes_->open_volume(image);  // X_label.nii.gz beside X_image.nii.gz opens with it
      show_status(label.isEmpty() ? tr("Generated %1").arg(image) : tr("Generated %1 with %2").arg(image, label));
    });
    // The generate step is a run: the same monitor as every run shows it.
    connect(maisi_dialog_->flow(), &app::MaisiGenerateFlow::generation_started, this, &MainWindow::on_run_opened);
    connect(maisi_dialog_->flow(), &app::MaisiGenerateFlow::failed, this, [this](const QString& message) {
      show_error(tr("MAISI generation: %1").arg(message.section('\n', 0, 0)));
    });
  }
  maisi_dialog_->show();
  maisi_dialog_->raise();
  maisi_dialog_->activateWindow();
  return maisi_dialog_;
}

SyntheticDatasetDialog* MainWindow::open_dataset_dialog() {
  if (!dataset_dialog_) {
    const QStringList roots = effective_roots();
    dataset_dialog_ = new SyntheticDatasetDialog(roots.isEmpty() ? QString() : roots.front(), this);
    connect(dataset_dialog_, &SyntheticDatasetDialog::dataset_written, this,
            [this](const QString& card) { show_status(tr("Synthetic dataset written: %1").arg(card)); });
  }
  dataset_dialog_->show();
  dataset_dialog_->raise();
  dataset_dialog_->activateWindow();
  return dataset_dialog_;
}

void MainWindow::open_run_dialog() {
  const QStringList roots = effective_roots();
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Open a run folder"), roots.isEmpty() ? QString() : roots.front());
  if (!dir.isEmpty()) coordinator_->open_run(dir);
}

void MainWindow::show_status(const QString& text) {
  last_message_ = text;
  statusBar()->setStyleSheet(QString());
  statusBar()->showMessage(text, k_message_timeout_ms);
}

void MainWindow::show_error(const QString& text) {
  last_message_ = text;
  statusBar()->setStyleSheet(QStringLiteral("QStatusBar { color: #d62728; }"));
  statusBar()->showMessage(text, k_error_timeout_ms);
}

void MainWindow::update_title() {
  setWindowTitle(tr("medsynth — %1").arg(tabs_->tabText(tabs_->indexOf(job_editor_))));
}

void MainWindow::update_actions() {
  const bool live = coordinator_->active() != nullptr;
  stop_action_->setEnabled(live);
  status_label_->setText(live ? tr("● run in progress") : QString());
}

bool MainWindow::save_screenshot(const QString& path, QString* error) {
  if (RunMonitorWidget* monitor = current_monitor()) monitor->refresh_now();
  // Let the layouts catch up with the texts and ranges just set (they update
  // on posted events), so the picture shows what the user sees a moment later.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
  const QPixmap shot = grab();
  QDir().mkpath(QFileInfo(path).absolutePath());
  if (shot.isNull() || !shot.save(path, "PNG")) {
    if (error) *error = tr("Cannot write the screenshot %1").arg(path);
    return false;
  }
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (coordinator_->active()) {
    if (!quit_when_stopped_) {
      const auto answer = QMessageBox::question(
          this, tr("A run is in progress"), tr("Stop the run (it writes a checkpoint and can be resumed) and quit?"),
          QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
      if (answer != QMessageBox::Yes) {
        event->ignore();
        return;
      }
      // Stop without blocking: the window closes itself once the engine has exited.
      quit_when_stopped_ = true;
      connect(coordinator_, &LaunchCoordinator::active_changed, this, [this](bool live) {
        if (!live) close();
      });
      coordinator_->stop_active();
      show_status(tr("Stopping the run; the console closes when it has saved its checkpoint…"));
    }
    event->ignore();
    return;
  }
  if (!quit_when_stopped_ && !job_editor_->confirm_discard()) {
    event->ignore();
    return;
  }
  settings_->set_window_geometry(saveGeometry());
  settings_->set_window_state(saveState());
  settings_->sync();
  event->accept();
}

}  // namespace medsynth::ui
