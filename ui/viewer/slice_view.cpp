#include "ui/viewer/slice_view.hpp"

#include <cmath>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkRenderer.h>

#include "ui/viewer/slice_scene.hpp"

namespace medsynth::ui {

SliceView::SliceView(SliceOrientation orientation, QWidget* parent)
    : VtkOpenGLWidget(parent), orientation_(orientation), scene_(std::make_unique<SliceScene>(orientation)) {
  render_window()->AddRenderer(scene_->renderer());
  // The mouse rules are ours (see the header); VTK's interactor style would
  // fight them, so none is installed.
  interactor()->SetInteractorStyle(nullptr);
  setMouseTracking(true);
  setToolTip(tr("Left: set crosshair · Right drag: window/level · Wheel: slice · Ctrl+wheel: zoom · Middle: pan"));
}

SliceView::~SliceView() = default;

void SliceView::set_volume(std::shared_ptr<const Volume> volume, const VolumeGeometry& geometry,
                           vtkImageData* image, vtkMatrix4x4* index_to_world) {
  volume_ = std::move(volume);
  scene_->set_image(image, index_to_world, geometry);
  request_render();
}

void SliceView::clear_volume() {
  volume_.reset();
  scene_->clear_image();
  request_render();
}

void SliceView::set_cursor(const Vec3& world) {
  scene_->set_cursor(world);
  request_render();
}

Vec3 SliceView::cursor() const { return scene_->cursor(); }

void SliceView::set_window_level(const WindowLevel& window_level) {
  scene_->set_window_level(window_level);
  request_render();
}

void SliceView::set_colormap(Colormap map) {
  scene_->set_colormap(map);
  request_render();
}

void SliceView::set_annotations_visible(bool visible) {
  scene_->set_annotations_visible(visible);
  request_render();
}

void SliceView::set_painting(bool painting) {
  painting_ = painting;
  setCursor(painting ? Qt::CrossCursor : Qt::ArrowCursor);
}

double SliceView::zoom() const { return scene_->zoom(); }

void SliceView::set_zoom(double zoom) {
  scene_->set_zoom(zoom);
  request_render();
}

Vec3 SliceView::pan_center() const { return scene_->pan_center(); }

void SliceView::set_pan_center(const Vec3& world) {
  scene_->set_pan_center(world);
  request_render();
}

void SliceView::reset_view() {
  scene_->reset_view();
  request_render();
}

SliceCamera SliceView::camera() const { return scene_->camera(width(), height()); }

Vec3 SliceView::world_at(const QPointF& position) const { return camera().display_to_world(position); }

VoxelProbe SliceView::probe_at(const QPointF& position) const {
  if (!volume_) return VoxelProbe{false, {0, 0, 0}, world_at(position), 0.0f};
  return probe_voxel(*volume_, scene_->geometry(), world_at(position));
}

void SliceView::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  if (!volume_ || drag_button_ != Qt::NoButton) return event->accept();
  drag_button_ = event->button();
  drag_start_ = last_position_ = event->position();
  if (drag_button_ == Qt::LeftButton) {
    if (painting_)
      emit paint_pressed(probe_at(event->position()));
    else
      emit cursor_requested(world_at(event->position()));
  }
  if (drag_button_ == Qt::RightButton) emit window_level_drag_started();
  event->accept();
}

void SliceView::mouseDoubleClickEvent(QMouseEvent* event) { mousePressEvent(event); }

void SliceView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == drag_button_) {
    if (drag_button_ == Qt::LeftButton && painting_) emit paint_released();
    drag_button_ = Qt::NoButton;
  }
  event->accept();
}

void SliceView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF position = event->position();
  if (volume_) {
    switch (drag_button_) {
      case Qt::LeftButton:
        if (painting_)
          emit paint_dragged(probe_at(position));
        else
          emit cursor_requested(world_at(position));
        break;
      case Qt::RightButton:
        emit window_level_dragged(position.x() - drag_start_.x(), position.y() - drag_start_.y());
        break;
      case Qt::MiddleButton: {
        // Drag the image with the mouse: the view centre moves the other way.
        const SliceCamera cam = camera();
        const double mpp = cam.mm_per_pixel();
        const QPointF d = position - last_position_;
        scene_->set_pan_center(
            sub(scene_->pan_center(), add(scale(cam.axes.right, d.x() * mpp), scale(cam.axes.up, -d.y() * mpp))));
        request_render();
        emit view_changed();
        break;
      }
      default: break;
    }
    emit hovered(probe_at(position));
  }
  last_position_ = position;
  event->accept();
}

void SliceView::wheelEvent(QWheelEvent* event) {
  event->accept();
  if (!volume_) return;
  // High-resolution wheels send fractions of a 120-unit notch: accumulate.
  wheel_remainder_ += event->angleDelta().y();
  const int steps = wheel_remainder_ / 120;
  if (steps == 0) return;
  wheel_remainder_ -= steps * 120;
  if (event->modifiers() & Qt::ControlModifier) {
    scene_->set_zoom(scene_->zoom() * std::pow(1.15, steps));
    request_render();
    emit view_changed();
  } else {
    emit scroll_requested(steps);
  }
}

void SliceView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Up:
    case Qt::Key_PageUp: emit scroll_requested(1); break;
    case Qt::Key_Down:
    case Qt::Key_PageDown: emit scroll_requested(-1); break;
    default: VtkOpenGLWidget::keyPressEvent(event); return;
  }
  event->accept();
}

void SliceView::leaveEvent(QEvent* event) {
  emit hover_left();
  VtkOpenGLWidget::leaveEvent(event);
}

}  // namespace medsynth::ui
