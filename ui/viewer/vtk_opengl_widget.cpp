#include "ui/viewer/vtk_opengl_widget.hpp"

#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurface>
#include <QWheelEvent>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkNew.h>
#include <vtkOpenGLState.h>
#include <vtkRenderWindowInteractor.h>

#include "ui/viewer/gl_renderer_info.hpp"

namespace medsynth::ui {

namespace {

// What VTK's window callbacks need: the widget whose context to use and the
// surface Qt made current with it (captured in initializeGL).
struct GlHost {
  QOpenGLWidget* widget = nullptr;
  QSurface* surface = nullptr;
};

}  // namespace

struct VtkOpenGLWidget::Private {
  GlHost host;
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  vtkNew<vtkCallbackCommand> window_callback;
  vtkNew<vtkCallbackCommand> interactor_callback;
  bool gl_ready = false;
  bool in_paint = false;
  QString renderer;
};

namespace {

// VTK's window asks us to make the context current, tells us it finished a
// frame, or asks whether the context is current.
void on_window_event(vtkObject*, unsigned long event, void* client, void* call_data) {
  auto* host = static_cast<GlHost*>(client);
  if (host == nullptr || host->widget == nullptr) return;
  QOpenGLContext* context = host->widget->context();
  switch (event) {
    case vtkCommand::WindowMakeCurrentEvent:
      // Only switch when needed, and never through QOpenGLWidget::makeCurrent():
      // it rebinds Qt's framebuffer behind VTK's state cache and blacks the view.
      if (context != nullptr && host->surface != nullptr && QOpenGLContext::currentContext() != context)
        context->makeCurrent(host->surface);
      break;
    case vtkCommand::WindowIsCurrentEvent:
      *static_cast<bool*>(call_data) = context != nullptr && QOpenGLContext::currentContext() == context;
      break;
    default: break;
  }
}

// The interactor (with rendering disabled) asks for a render: schedule one.
void on_interactor_render(vtkObject*, unsigned long, void* client, void*) {
  if (auto* widget = static_cast<VtkOpenGLWidget*>(client)) widget->request_render();
}

const char* keysym_for(int key) {
  switch (key) {
    case Qt::Key_Left: return "Left";
    case Qt::Key_Right: return "Right";
    case Qt::Key_Up: return "Up";
    case Qt::Key_Down: return "Down";
    case Qt::Key_PageUp: return "Prior";
    case Qt::Key_PageDown: return "Next";
    case Qt::Key_Home: return "Home";
    case Qt::Key_End: return "End";
    case Qt::Key_Escape: return "Escape";
    case Qt::Key_Return:
    case Qt::Key_Enter: return "Return";
    case Qt::Key_Space: return "space";
    case Qt::Key_Plus: return "plus";
    case Qt::Key_Minus: return "minus";
    case Qt::Key_Delete: return "Delete";
    case Qt::Key_Backspace: return "BackSpace";
    case Qt::Key_Tab: return "Tab";
    case Qt::Key_Shift: return "Shift_L";
    case Qt::Key_Control: return "Control_L";
    case Qt::Key_Alt: return "Alt_L";
    default: return nullptr;
  }
}

}  // namespace

VtkOpenGLWidget::VtkOpenGLWidget(QWidget* parent) : QOpenGLWidget(parent), d_(std::make_unique<Private>()) {
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(64, 64);
  // Until Qt hands us a context, VTK must not try to render on its own.
  d_->window->SetReadyForRendering(false);
  d_->window->SetFrameBlitModeToNoBlit();
  d_->window->SetMultiSamples(0);  // Qt's framebuffer is single-sampled; blitting MSAA into it fails

  d_->window_callback->SetCallback(on_window_event);
  d_->host.widget = this;
  d_->window_callback->SetClientData(&d_->host);
  d_->window->AddObserver(vtkCommand::WindowMakeCurrentEvent, d_->window_callback);
  d_->window->AddObserver(vtkCommand::WindowIsCurrentEvent, d_->window_callback);

  d_->interactor->SetRenderWindow(d_->window);
  d_->interactor->EnableRenderOff();
  d_->interactor_callback->SetCallback(on_interactor_render);
  d_->interactor_callback->SetClientData(this);
  d_->interactor->AddObserver(vtkCommand::RenderEvent, d_->interactor_callback);
  d_->interactor->Initialize();
}

VtkOpenGLWidget::~VtkOpenGLWidget() {
  // QOpenGLWidget's destructor destroys the context after ours has run: the
  // aboutToBeDestroyed connection must not reach this half-destroyed object.
  if (context() != nullptr) disconnect(context(), nullptr, this, nullptr);
  if (d_->gl_ready) {
    makeCurrent();
    release_graphics();
    doneCurrent();
  }
  d_->host.widget = nullptr;
  d_->interactor_callback->SetClientData(nullptr);
}

vtkGenericOpenGLRenderWindow* VtkOpenGLWidget::render_window() const { return d_->window; }
vtkGenericRenderWindowInteractor* VtkOpenGLWidget::interactor() const { return d_->interactor; }
bool VtkOpenGLWidget::is_gl_ready() const { return d_->gl_ready; }
QString VtkOpenGLWidget::gl_renderer() const { return d_->renderer; }

void VtkOpenGLWidget::request_render() {
  if (!d_->in_paint) update();
}

QImage VtkOpenGLWidget::grab_frame() {
  if (!d_->gl_ready) return {};
  // VTK's framebuffer carries alpha; a screenshot must not be see-through.
  return grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

void VtkOpenGLWidget::initializeGL() {
  if (context() == nullptr) return;
  d_->host.surface = context()->surface();
  // A reparent destroys the context: release VTK's objects in it first.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &VtkOpenGLWidget::release_graphics,
          Qt::UniqueConnection);

  const auto* renderer = reinterpret_cast<const char*>(context()->functions()->glGetString(GL_RENDERER));
  d_->renderer = renderer != nullptr ? QString::fromLatin1(renderer) : QString();
  remember_gl_renderer(d_->renderer);

  d_->window->SetOwnContext(0);
  d_->window->SetIsDirect(1);
  d_->window->SetSupportsOpenGL(1);
  d_->window->SetMapped(1);
  d_->window->SetReadyForRendering(true);
  d_->window->OpenGLInitContext();
  d_->gl_ready = true;
  sync_size();
  emit gl_initialized();
}

void VtkOpenGLWidget::resizeGL(int, int) { sync_size(); }

void VtkOpenGLWidget::sync_size() {
  const qreal ratio = devicePixelRatioF();
  const int w = std::max(1, static_cast<int>(width() * ratio + 0.5));
  const int h = std::max(1, static_cast<int>(height() * ratio + 0.5));
  d_->window->SetSize(w, h);
  d_->interactor->UpdateSize(w, h);
}

void VtkOpenGLWidget::paintGL() {
  if (!d_->gl_ready) return;
  d_->in_paint = true;
  sync_size();
  vtkOpenGLState* state = d_->window->GetState();
  // Qt changed GL state since VTK last looked: re-read it, save it, and give
  // it back untouched after VTK is done.
  state->Reset();
  state->Push();
  state->vtkglDepthFunc(GL_LEQUAL);  // VTK's assumption; Qt leaves GL_LESS
  d_->window->Render();

  const int* size = d_->window->GetSize();
  state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  state->vtkglDrawBuffer(GL_COLOR_ATTACHMENT0);
  d_->window->BlitDisplayFramebuffer(0, 0, 0, size[0], size[1], 0, 0, size[0], size[1], GL_COLOR_BUFFER_BIT,
                                     GL_NEAREST);
  state->Pop();
  d_->in_paint = false;
  emit frame_rendered();
}

void VtkOpenGLWidget::release_graphics() {
  if (!d_->gl_ready) return;
  // Called from the destructor (context already current) or from
  // aboutToBeDestroyed (make it current; safe here, VTK is not rendering).
  if (QOpenGLContext::currentContext() != context()) makeCurrent();
  d_->window->ReleaseGraphicsResources(d_->window);
  d_->window->SetReadyForRendering(false);
  d_->gl_ready = false;
}

void VtkOpenGLWidget::forward_pointer(const QPointF& position, Qt::KeyboardModifiers modifiers,
                                      unsigned long vtk_event, int repeat) {
  const qreal ratio = devicePixelRatioF();
  d_->interactor->SetEventInformationFlipY(static_cast<int>(position.x() * ratio + 0.5),
                                           static_cast<int>(position.y() * ratio + 0.5),
                                           (modifiers & Qt::ControlModifier) ? 1 : 0,
                                           (modifiers & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
  d_->interactor->SetAltKey((modifiers & Qt::AltModifier) ? 1 : 0);
  d_->interactor->InvokeEvent(vtk_event, nullptr);
}

namespace {
unsigned long press_event(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton: return vtkCommand::LeftButtonPressEvent;
    case Qt::RightButton: return vtkCommand::RightButtonPressEvent;
    case Qt::MiddleButton: return vtkCommand::MiddleButtonPressEvent;
    default: return vtkCommand::NoEvent;
  }
}
unsigned long release_event(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton: return vtkCommand::LeftButtonReleaseEvent;
    case Qt::RightButton: return vtkCommand::RightButtonReleaseEvent;
    case Qt::MiddleButton: return vtkCommand::MiddleButtonReleaseEvent;
    default: return vtkCommand::NoEvent;
  }
}
}  // namespace

void VtkOpenGLWidget::mousePressEvent(QMouseEvent* event) {
  if (const auto id = press_event(event->button()); id != vtkCommand::NoEvent)
    forward_pointer(event->position(), event->modifiers(), id);
  event->accept();
}

void VtkOpenGLWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (const auto id = release_event(event->button()); id != vtkCommand::NoEvent)
    forward_pointer(event->position(), event->modifiers(), id);
  event->accept();
}

void VtkOpenGLWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  if (const auto id = press_event(event->button()); id != vtkCommand::NoEvent)
    forward_pointer(event->position(), event->modifiers(), id, 1);
  event->accept();
}

void VtkOpenGLWidget::mouseMoveEvent(QMouseEvent* event) {
  forward_pointer(event->position(), event->modifiers(), vtkCommand::MouseMoveEvent);
  event->accept();
}

void VtkOpenGLWidget::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  unsigned long id = vtkCommand::NoEvent;
  if (delta.y() != 0)
    id = delta.y() > 0 ? vtkCommand::MouseWheelForwardEvent : vtkCommand::MouseWheelBackwardEvent;
  else if (delta.x() != 0)
    id = delta.x() > 0 ? vtkCommand::MouseWheelLeftEvent : vtkCommand::MouseWheelRightEvent;
  if (id != vtkCommand::NoEvent) forward_pointer(event->position(), event->modifiers(), id);
  event->accept();
}

void VtkOpenGLWidget::keyPressEvent(QKeyEvent* event) {
  const QByteArray text = event->text().toLatin1();
  const char code = text.isEmpty() ? 0 : text.at(0);
  const char* keysym = keysym_for(event->key());
  const QByteArray fallback = text.isEmpty() ? QByteArray() : text.left(1);
  d_->interactor->SetKeyEventInformation((event->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                         (event->modifiers() & Qt::ShiftModifier) ? 1 : 0, code,
                                         event->isAutoRepeat() ? 1 : 0,
                                         keysym != nullptr ? keysym : fallback.constData());
  d_->interactor->InvokeEvent(vtkCommand::KeyPressEvent, nullptr);
  if (code != 0) d_->interactor->InvokeEvent(vtkCommand::CharEvent, nullptr);
  event->accept();
}

void VtkOpenGLWidget::keyReleaseEvent(QKeyEvent* event) {
  const QByteArray text = event->text().toLatin1();
  const char* keysym = keysym_for(event->key());
  const QByteArray fallback = text.isEmpty() ? QByteArray() : text.left(1);
  d_->interactor->SetKeyEventInformation((event->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                         (event->modifiers() & Qt::ShiftModifier) ? 1 : 0,
                                         text.isEmpty() ? 0 : text.at(0), 0,
                                         keysym != nullptr ? keysym : fallback.constData());
  d_->interactor->InvokeEvent(vtkCommand::KeyReleaseEvent, nullptr);
  event->accept();
}

void VtkOpenGLWidget::enterEvent(QEnterEvent* event) {
  forward_pointer(event->position(), QGuiApplication::keyboardModifiers(), vtkCommand::EnterEvent);
  QOpenGLWidget::enterEvent(event);
}

void VtkOpenGLWidget::leaveEvent(QEvent* event) {
  d_->interactor->InvokeEvent(vtkCommand::LeaveEvent, nullptr);
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace medsynth::ui
