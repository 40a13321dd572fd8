// The viewer side of the main window: opens volumes (--open-volume, File menu,
// a file activated in a run monitor), side-by-side comparisons, and one
// Samples tab per run that lists the run's artifact volumes as they arrive.
// Each is a closable tab of the main tab widget; the widgets themselves live in
// ui/viewer/ (medsynth_viewer). Owned by MainWindow.
#pragma once

#include <QObject>
#include <QString>

class QTabWidget;
class QWidget;

namespace medsynth::app {
class RunController;
}  // namespace medsynth::app

namespace medsynth::ui {

using app::RunController;

class VolumeWorkspace : public QObject {
  Q_OBJECT

 public:
  explicit VolumeWorkspace(QTabWidget* tabs, QObject* parent = nullptr);

  // A viewer tab showing `path` (.nii/.nii.gz or a DICOM folder); load errors show in the tab.
  QWidget* open_volume(const QString& path);
  QWidget* compare(const QString& path_a, const QString& path_b);
  // The label editor (issue 39.2) for an image and, optionally, its label map.
  QWidget* open_label_studio(const QString& image_path, const QString& label_path = {});
  // The Samples tab of a run (created once per run).
  QWidget* attach_samples(RunController* run);

  // True for tabs this workspace created (the main window closes them plainly).
  bool owns(QWidget* tab) const;

  void open_volume_dialog(QWidget* parent);
  void compare_dialog(QWidget* parent);
  void label_studio_dialog(QWidget* parent);

 private:
  QTabWidget* tabs_;
};

}  // namespace medsynth::ui
