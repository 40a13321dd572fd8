#include "ui/shell/volume_workspace.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QTabWidget>

#include "app/session/run_controller.hpp"
#include "core/volume_file_names.hpp"
#include "ui/viewer/compare_widget.hpp"
#include "ui/viewer/label_studio.hpp"
#include "ui/viewer/viewer_toolbar.hpp"
#include "ui/viewer/samples_panel.hpp"
#include "ui/viewer/volume_viewer_widget.hpp"

namespace medsynth::ui {
namespace {

constexpr const char* k_owned = "medsynth_volume_tab";
// Every file read_volume reads (NIfTI, NRRD, MetaImage), not NIfTI alone
// (issue 53 item 10).
QString volume_filter() {
  QStringList patterns;
  for (std::string_view suffix : k_volume_file_extensions)
    patterns << "*" + QString::fromUtf8(suffix.data(), static_cast<qsizetype>(suffix.size()));
  return QObject::tr("Volumes (%1);;All files (*)").arg(patterns.join(' '));
}

QWidget* add_tab(QTabWidget* tabs, QWidget* widget, const QString& title) {
  widget->setProperty(k_owned, true);
  tabs->setCurrentIndex(tabs->addTab(widget, title));
  return widget;
}

}  // namespace

VolumeWorkspace::VolumeWorkspace(QTabWidget* tabs, QObject* parent) : QObject(parent), tabs_(tabs) {}

QWidget* VolumeWorkspace::open_volume(const QString& path) {
  auto* viewer = new VolumeViewerWidget(tabs_);
  viewer->open_volume(path);
  viewer->toolbar()->offer_label_editing(true);
  connect(viewer->toolbar(), &ViewerToolbar::edit_labels_requested, this, [this, viewer] {
    if (viewer->has_volume()) open_label_studio(viewer->volume_label(), viewer->label_map_path());
  });
  return add_tab(tabs_, viewer, QFileInfo(path).fileName());
}

QWidget* VolumeWorkspace::open_label_studio(const QString& image_path, const QString& label_path) {
  auto* studio = new LabelStudio(tabs_);
  studio->open(image_path, label_path);
  return add_tab(tabs_, studio, tr("Labels · %1").arg(QFileInfo(image_path).fileName()));
}

QWidget* VolumeWorkspace::compare(const QString& path_a, const QString& path_b) {
  auto* widget = new CompareWidget(tabs_);
  widget->open_volumes(path_a, path_b);
  return add_tab(tabs_, widget, tr("%1 vs %2").arg(QFileInfo(path_a).fileName(), QFileInfo(path_b).fileName()));
}

QWidget* VolumeWorkspace::attach_samples(RunController* run) {
  auto* panel = new SamplesPanel(tabs_);
  panel->set_run_model(run->model());
  if (!run->run_dir().isEmpty()) panel->set_run_dir(run->run_dir());
  connect(run, &RunController::run_dir_known, panel, [this, panel](const QString& dir) {
    panel->set_run_dir(dir);
    tabs_->setTabText(tabs_->indexOf(panel), tr("Samples · %1").arg(QFileInfo(dir).fileName()));
  });
  const QString name = run->run_dir().isEmpty() ? tr("new run") : QFileInfo(run->run_dir()).fileName();
  const int current = tabs_->currentIndex();
  add_tab(tabs_, panel, tr("Samples · %1").arg(name));
  tabs_->setCurrentIndex(current);  // the run's monitor stays in front
  return panel;
}

bool VolumeWorkspace::owns(QWidget* tab) const { return tab && tab->property(k_owned).toBool(); }

void VolumeWorkspace::open_volume_dialog(QWidget* parent) {
  const QString path = QFileDialog::getOpenFileName(parent, tr("Open a volume"), QString(), volume_filter());
  if (!path.isEmpty()) open_volume(path);
}

void VolumeWorkspace::compare_dialog(QWidget* parent) {
  const QString a =
      QFileDialog::getOpenFileName(parent, tr("Compare: first volume (e.g. generated)"), QString(), volume_filter());
  if (a.isEmpty()) return;
  const QString b = QFileDialog::getOpenFileName(parent, tr("Compare: second volume (e.g. real)"), QFileInfo(a).path(),
                                                 volume_filter());
  if (!b.isEmpty()) compare(a, b);
}

void VolumeWorkspace::label_studio_dialog(QWidget* parent) {
  const QString image =
      QFileDialog::getOpenFileName(parent, tr("Edit labels: the image to paint over"), QString(), volume_filter());
  if (!image.isEmpty()) open_label_studio(image);
}

}  // namespace medsynth::ui
