// Two volumes side by side (A and B) with linked crosshair, slice zoom/pan,
// window/level, colormap and 3D camera, and below them A - B in a diverging
// colormap when both are on the same grid (otherwise a message saying what
// differs). For comparing generated samples with references, or two
// checkpoints' outputs. GUI thread only.
#pragma once

#include <QWidget>

#include "ui/viewer/volume_viewer_widget.hpp"

class QLabel;

namespace medsynth::ui {

class CompareWidget : public QWidget {
  Q_OBJECT

 public:
  explicit CompareWidget(QWidget* parent = nullptr, ViewerOptions options = {});
  ~CompareWidget() override;

  void open_volumes(const QString& path_a, const QString& path_b);
  void open_a(const QString& path);
  void open_b(const QString& path);
  void set_volumes(std::shared_ptr<const Volume> a, const QString& label_a, std::shared_ptr<const Volume> b,
                   const QString& label_b);

  VolumeViewerWidget* viewer_a() const { return a_; }
  VolumeViewerWidget* viewer_b() const { return b_; }
  VolumeViewerWidget* difference_viewer() const { return difference_; }

  bool difference_available() const { return difference_available_; }
  // Why there is no difference image (grids differ, a side failed), or a
  // one-line summary of the difference when there is one.
  QString difference_message() const;
  double difference_max_abs() const { return max_abs_; }

 signals:
  // After A or B changed: whether a difference image is shown now.
  void difference_updated(bool available);

 private:
  void link(VolumeViewerWidget* from, const QList<VolumeViewerWidget*>& to, bool display_settings);
  void update_difference();
  template <typename F>
  void propagate(F&& apply);

  VolumeViewerWidget* a_ = nullptr;
  VolumeViewerWidget* b_ = nullptr;
  VolumeViewerWidget* difference_ = nullptr;
  QLabel* difference_label_ = nullptr;
  bool difference_available_ = false;
  double max_abs_ = 0.0;
  bool linking_ = false;  // a change is being copied to the other viewers
};

}  // namespace medsynth::ui
