// A QOpenGLWidget that hosts a vtkGenericOpenGLRenderWindow: Debian's VTK Qt
// module is built for Qt 5, so the viewer hosts VTK itself (pattern described
// in shared/design/PLATFORM-NOTES.md, implemented here from that description).
// VTK renders into its own framebuffer inside paintGL; the result is blitted
// into the widget's framebuffer. Qt input events go to a
// vtkGenericRenderWindowInteractor, so VTK interactor styles work unchanged.
// Used by SliceView and VolumeRenderView. GUI thread only. Needs a real GL
// platform (xcb/Xvfb): the offscreen QPA platform cannot host it.
#pragma once

#include <memory>

#include <QImage>
#include <QOpenGLWidget>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;

namespace medsynth::ui {

class VtkOpenGLWidget : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkOpenGLWidget(QWidget* parent = nullptr);
  ~VtkOpenGLWidget() override;

  vtkGenericOpenGLRenderWindow* render_window() const;
  vtkGenericRenderWindowInteractor* interactor() const;

  // Schedules a repaint; VTK renders inside the next paintGL. Never renders
  // synchronously (a render outside paintGL would bypass Qt's framebuffer).
  void request_render();
  // Renders the current scene and returns it (RGB32, device pixels).
  // Empty before the widget has a GL context.
  QImage grab_frame();
  bool is_gl_ready() const;
  // The GL_RENDERER string of this widget's context (empty before init).
  QString gl_renderer() const;

 signals:
  // Once per GL context: after the first show, and again if a reparent
  // re-creates the context. Scenes that depend on the renderer react here.
  void gl_initialized();
  // After each frame VTK rendered into this widget.
  void frame_rendered();

 protected:
  void initializeGL() override;
  void resizeGL(int width, int height) override;
  void paintGL() override;

  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  struct Private;
  void release_graphics();
  void forward_pointer(const QPointF& position, Qt::KeyboardModifiers modifiers, unsigned long vtk_event,
                       int repeat = 0);
  void sync_size();

  std::unique_ptr<Private> d_;
};

}  // namespace medsynth::ui
