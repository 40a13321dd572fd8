// One slice view (axial, coronal or sagittal) of VolumeViewerWidget: a
// VtkOpenGLWidget showing a SliceScene, with the viewer's mouse rules:
//   left click/drag   set the crosshair point (all views follow)
//   right drag        window/level
//   wheel, Up/Down    next/previous slice;  Ctrl+wheel zoom;  middle drag pan
//   hover             value under the cursor (hovered signal)
// While painting (set_painting, the label editor's brush, eraser and fill),
// the left button edits the label map instead: paint_pressed, paint_dragged
// and paint_released carry the voxel under the mouse.
// It does not change shared state itself: it emits requests and the viewer
// applies them to all views, which keeps linked views consistent.
#pragma once

#include <memory>

#include "ui/viewer/slice_geometry.hpp"
#include "ui/viewer/vtk_opengl_widget.hpp"
#include "ui/viewer/window_level.hpp"
#include "ui/viewer/colormap.hpp"

class vtkImageData;
class vtkMatrix4x4;

namespace medsynth::ui {

class SliceScene;

class SliceView : public VtkOpenGLWidget {
  Q_OBJECT

 public:
  explicit SliceView(SliceOrientation orientation, QWidget* parent = nullptr);
  ~SliceView() override;

  SliceOrientation orientation() const { return orientation_; }

  void set_volume(std::shared_ptr<const Volume> volume, const VolumeGeometry& geometry, vtkImageData* image,
                  vtkMatrix4x4* index_to_world);
  void clear_volume();
  bool has_volume() const { return volume_ != nullptr; }

  void set_cursor(const Vec3& world);
  Vec3 cursor() const;
  void set_window_level(const WindowLevel& window_level);
  void set_colormap(Colormap map);
  void set_annotations_visible(bool visible);
  void set_painting(bool painting);
  bool painting() const { return painting_; }

  double zoom() const;
  void set_zoom(double zoom);
  Vec3 pan_center() const;
  void set_pan_center(const Vec3& world);
  void reset_view();

  // The camera for the widget's current size in logical pixels.
  SliceCamera camera() const;
  // What is drawn at a widget position (logical pixels, Qt's top-left origin).
  Vec3 world_at(const QPointF& position) const;
  VoxelProbe probe_at(const QPointF& position) const;

  SliceScene& scene() { return *scene_; }

 signals:
  void cursor_requested(const medsynth::ui::Vec3& world);
  void hovered(const medsynth::ui::VoxelProbe& probe);
  void hover_left();
  void scroll_requested(int steps);
  void window_level_drag_started();
  // Offset from where the right-button drag started, in logical pixels.
  void window_level_dragged(double dx, double dy);
  // The user zoomed or panned this view.
  void view_changed();
  // Left button while painting: a stroke starts, goes on, ends.
  void paint_pressed(const medsynth::ui::VoxelProbe& probe);
  void paint_dragged(const medsynth::ui::VoxelProbe& probe);
  void paint_released();

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  SliceOrientation orientation_;
  std::unique_ptr<SliceScene> scene_;
  std::shared_ptr<const Volume> volume_;
  Qt::MouseButton drag_button_ = Qt::NoButton;
  QPointF drag_start_;
  QPointF last_position_;
  int wheel_remainder_ = 0;
  bool painting_ = false;
};

}  // namespace medsynth::ui

Q_DECLARE_METATYPE(medsynth::ui::Vec3)
Q_DECLARE_METATYPE(medsynth::ui::VoxelProbe)
