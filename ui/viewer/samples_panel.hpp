// The Samples panel of the run monitor: the volumes a run produced (its
// `artifact` events: step, kind, path) in arrival order, with a viewer that
// shows the newest one as it arrives (unless "Follow newest" is unticked) or
// the one the user picks. Bind it to a live run with set_run_model(), or feed
// it through the add_artifact() slot. GUI thread only.
#pragma once

#include <QPointer>
#include <QWidget>

#include "ui/viewer/volume_viewer_widget.hpp"

class QCheckBox;
class QTreeWidget;

namespace medsynth::app {
class RunModel;
struct Artifact;
}  // namespace medsynth::app

namespace medsynth::ui {

class SamplesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit SamplesPanel(QWidget* parent = nullptr, ViewerOptions viewer_options = {});
  ~SamplesPanel() override;

  // Relative artifact paths (as the engine writes them) resolve against it.
  void set_run_dir(const QString& run_dir);
  QString run_dir() const { return run_dir_; }
  // Lists the model's artifacts so far and follows new ones; null unbinds.
  void set_run_model(medsynth::app::RunModel* model);

  int sample_count() const;
  QString sample_path(int row) const;  // absolute
  QString current_path() const;        // the sample shown (or loading)
  void select_sample(int row);
  bool follow_newest() const;
  void set_follow_newest(bool follow);
  void clear();

  VolumeViewerWidget* viewer() const { return viewer_; }

  // True for the artifacts this panel lists: kind "volume" or a NIfTI path.
  static bool is_volume_artifact(const QString& path, const QString& kind);

 public slots:
  void add_artifact(const QString& path, const QString& kind, qint64 step);

 signals:
  void sample_added(const QString& absolute_path);
  void sample_opened(const QString& absolute_path);

 private:
  QString resolve(const QString& path) const;
  void open_row(int row);

  QString run_dir_;
  QString current_;
  QTreeWidget* list_ = nullptr;
  QCheckBox* follow_ = nullptr;
  VolumeViewerWidget* viewer_ = nullptr;
  QPointer<medsynth::app::RunModel> model_;
  QMetaObject::Connection artifact_connection_;
  QMetaObject::Connection cleared_connection_;
};

}  // namespace medsynth::ui
